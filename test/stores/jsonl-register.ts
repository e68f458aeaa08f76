/**
 * Registers the test-only JSON-lines store under `jsonl:`, as a third-party store's package would:
 * the conformance kit's child processes import this module (`crossProcess.register`) before they
 * open a `jsonl:` URL. The loader returns a driver; the registry builds the store over it.
 */
import { registerStore } from '../../src/stores/open-store.js';

registerStore('jsonl', async (url) => {
  const { jsonlDirectoryFromUrl, jsonlDriver } = await import('./jsonl-driver.js');
  return jsonlDriver(jsonlDirectoryFromUrl(url));
});
