/**
 * docs/stores.md's "Your own store" examples run: the registration (its driver is the test-only
 * JSON-lines driver, test/stores/jsonl-driver.ts) and the conformance file, whose configuration is
 * captured (the whole kit runs for that driver in test/stores/jsonl.test.ts) and exercised: it
 * creates a store, and its cross-process URL and register module open the same data.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { openStore } from '../../src/stores/open-store.js';
import type { StoreConformanceConfig } from '../../src/testing/index.js';
import { codeBlocks, docsSection, toSource } from '../support/readme-example.js';

const dir = new URL('../../.tmp/docs-my-store/', import.meta.url);

/** The ts blocks of "Your own store", imports pointed at src/ as seen from .tmp/docs-my-store/. */
async function examples(): Promise<string[]> {
  const blocks = codeBlocks(await docsSection('docs/stores.md', '## Your own store'), 'ts');
  return Promise.all(
    blocks.map(async (block) =>
      (await toSource(block, 'docs/stores.md')).replaceAll("from '../src/", "from '../../src/"),
    ),
  );
}

describe('docs/stores.md: your own store', () => {
  it('registers a scheme and certifies it with a conformance configuration that works', async () => {
    const [register, conformance] = await examples();
    expect(register).toContain("registerStore('mystore'");
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(
      new URL('driver.ts', dir),
      [
        "import { jsonlDirectoryFromUrl, jsonlDriver } from '../../test/stores/jsonl-driver.js';",
        "export const myDriver = (url: string) => jsonlDriver(jsonlDirectoryFromUrl(url.replace(/^mystore:/, 'jsonl:')));",
      ].join('\n'),
    );
    await writeFile(new URL('register.ts', dir), register as string);
    const stub =
      'const runStoreConformance = (config: unknown) => void ((globalThis as { captured?: unknown }).captured = config);';
    const testing = /^import \{ runStoreConformance \} from '[^']*testing[^']*';$/m;
    expect(conformance).toMatch(testing);
    await writeFile(new URL('conformance.ts', dir), (conformance as string).replace(testing, stub));

    await import(new URL('conformance.ts', dir).href);
    const config = (globalThis as { captured?: StoreConformanceConfig }).captured;
    if (config === undefined) throw new Error('the example did not call runStoreConformance');
    expect(config.name).toBe('mystore');
    expect(config.capabilities?.values).toBe(false);

    const store = (await config.create({})) as SessionStore;
    let other: SessionStore | undefined;
    try {
      await store.save(Session.create({ id: 'chat-1' }).append(Message.user('Hello')));
      // The store declares no values: the core refuses them.
      await expect(store.values.get({ scope: 'app' }, 'k')).rejects.toSatisfy((error) =>
        ChatstateError.hasCode(error, 'UNSUPPORTED'),
      );
      // What a child process is told: a URL that opens the same data, and a register module that exists.
      const cross = config.crossProcess;
      const url = typeof cross?.url === 'function' ? cross.url(store) : cross?.url;
      expect(url).toMatch(/^mystore:/);
      other = await openStore(url as string);
      expect((await other.load('chat-1')).messages.map((message) => message.content)).toEqual(['Hello']);
      const register = cross?.register;
      expect(typeof register).toBe('string');
      expect(existsSync(fileURLToPath(register as string))).toBe(true);
      await other.close();
      other = undefined;
    } finally {
      await other?.close();
      await store.close();
      const url = typeof config.crossProcess?.url === 'function' ? config.crossProcess.url(store) : '';
      if (url.startsWith('mystore:')) await rm(url.slice('mystore:'.length), { recursive: true, force: true });
    }
  });
});
