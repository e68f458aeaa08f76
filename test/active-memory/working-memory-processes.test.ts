/**
 * Working memory across processes: two processes patch one user's working memory at once, on a
 * file and on a SQLite store; compare-and-set with retries loses no edit, and every version is kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkingMemory } from '../../src/active-memory/working-memory.js';
import { bundledScript } from '../support/bundled-script.js';
import { runCommand } from '../support/run-command.js';
import { fileSubject, sqliteSubject, storesOf } from './harness.js';

const CHILD = new URL('../support/working-memory-child.ts', import.meta.url).pathname;
/** Patches each process applies. */
const EDITS = 25;

describe.each([fileSubject('wm-processes'), sqliteSubject('wm-processes')])('working memory on $name', (subject) => {
  const stores = storesOf(subject);

  it('keeps every edit of two processes writing at once, and a version for each', async () => {
    const store = await stores.open();
    const url = subject.url(store) as string;
    const bundle = await bundledScript(CHILD);
    // Both start writing once both have started and opened the store.
    const barrier = mkdtempSync(join(tmpdir(), 'chatstate-wm-barrier-'));
    const runs = await Promise.all(
      ['a', 'b'].map((writer) => runCommand(process.execPath, [bundle, url, writer, String(EDITS), barrier, '2'])),
    ).finally(() => rmSync(barrier, { recursive: true, force: true }));
    for (const run of runs)
      expect({ code: run.code, stderr: run.stderr, stdout: run.stdout.trim() }).toEqual({
        code: 0,
        stderr: '',
        stdout: 'done',
      });
    const reopened = await stores.reopen(store);
    const memory = new WorkingMemory({ store: reopened, userId: 'u1' });
    const final = await memory.read();
    const expected = Object.fromEntries(
      ['a', 'b'].flatMap((writer) => Array.from({ length: EDITS }, (_, index) => [`${writer}-${index}`, index])),
    );
    expect(final.document).toEqual(expected);
    const { versions } = await memory.history({ limit: 1000 });
    expect(versions).toHaveLength(2 * EDITS + 1);
    expect(versions.map((version) => version.version)).toEqual(
      Array.from({ length: 2 * EDITS + 1 }, (_, index) => index + 1),
    );
    // Each version is the one before with one more edit: none was written over a stale read.
    versions.slice(1).forEach((version, index) => {
      const before = versions[index]?.document ?? {};
      expect(Object.keys(version.document)).toHaveLength(Object.keys(before).length + 1);
      expect(version.document).toMatchObject(before);
    });
    const writers = versions.slice(1).map((version) => version.by);
    const switches = writers.filter((by, index) => index > 0 && by !== writers[index - 1]).length;
    // The writers took turns: they did write at the same time.
    expect(switches).toBeGreaterThanOrEqual(2);
  });
});
