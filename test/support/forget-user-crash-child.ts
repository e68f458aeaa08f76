/**
 * Child process of the forgetUser crash test: opens a file or SQLite store, prints `READY`, runs
 * `forgetUser(userId)` once, prints `DONE <receipt>` and exits — unless the parent SIGKILLs it first,
 * which is the point.
 *
 * Usage: node forget-user-crash-child.mjs (the test runs it bundled) <file|sqlite> <location> <userId>
 */
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileStore } from '../../src/stores/file/index.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';

const [kind, location, userId] = process.argv.slice(2);
if ((kind !== 'file' && kind !== 'sqlite') || location === undefined || userId === undefined) {
  throw new Error('usage: forget-user-crash-child.ts <file|sqlite> <location> <userId>');
}

const store: SessionStore = kind === 'file' ? fileStore(location) : await sqliteStore(location);
process.stdout.write('READY\n');
const receipt = await store.forgetUser(userId);
process.stdout.write(`DONE ${JSON.stringify(receipt)}\n`);
await store.close();
