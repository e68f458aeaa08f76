/**
 * Child process of the missing-dependency test: hides `better-sqlite3` from module resolution, as
 * if it were not installed, then opens a `sqlite:` store and prints what was thrown as JSON.
 *
 * Usage: node --import tsx sqlite-missing-child.ts <file>
 */
import './hide-better-sqlite3.js';

const { openStore } = await import('../../src/stores/open-store.js');
try {
  await openStore(`sqlite:${process.argv[2] ?? ''}`);
  process.stdout.write(JSON.stringify({ opened: true }));
} catch (error) {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  process.stdout.write(JSON.stringify({ name, code, message }));
}
