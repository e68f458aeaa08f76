/**
 * The conformance kit's writer processes (`src/testing/processes.ts`): the runs of a suite share
 * them, a run whose child fails says which child and why and leaves no process behind, and the
 * next run gets fresh ones.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import { fileStore } from '../../src/stores/file/index.js';
import { runChildren, type ChildPlan } from '../../src/testing/processes.js';
import { BUILT_IN_STORES } from '../support/built-in-stores.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function storeWithSession(): Promise<{
  url: string;
  id: string;
  writers(): Promise<Map<string, string | undefined>>;
  close(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'chatstate-children-'));
  dirs.push(dir);
  const store = fileStore(dir);
  const saved = await store.save(Session.create({ id: 'shared' }));
  /** The pid of the process that wrote each message (the kit's children say it in the text). */
  const writers = async () =>
    new Map(
      (await store.load(saved.id)).messages.map((message) => [
        message.id,
        /from process (\d+)/.exec(String(message.content))?.[1],
      ]),
    );
  return { url: `file:${dir}`, id: saved.id, writers, close: () => store.close() };
}

const plan = (url: string, sessionId: string, ids: string[], register = [BUILT_IN_STORES]): ChildPlan => ({
  url,
  register,
  sessionId,
  appends: ids.map((id) => ({ ids: [id] })),
});

describe('the kit’s writer processes', () => {
  it('run one plan after another in the same processes', async () => {
    const { url, id, writers, close } = await storeWithSession();
    try {
      const first = await runChildren([plan(url, id, ['a1']), plan(url, id, ['b1'])]);
      const second = await runChildren([plan(url, id, ['a2']), plan(url, id, ['b2'])]);
      expect([...first, ...second].map((report) => report.outcomes[0]?.appended)).toEqual([
        ['a1'],
        ['b1'],
        ['a2'],
        ['b2'],
      ]);
      const pids = await writers();
      expect(new Set([pids.get('a2'), pids.get('b2')])).toEqual(new Set([pids.get('a1'), pids.get('b1')]));
      expect(pids.get('a1')).not.toBe(pids.get('b1'));
    } finally {
      await close();
    }
  });

  it('name the child that failed and why; the next run starts afresh', async () => {
    const { url, id, close } = await storeWithSession();
    try {
      // No module registers the file: scheme in this child.
      await expect(runChildren([plan(url, id, ['ok']), plan(url, id, ['never'], [])])).rejects.toThrow(
        /child 1 exited with code 1: .*crossProcess\.register must name the modules/s,
      );
      const again = await runChildren([plan(url, id, ['after'])]);
      expect(again[0]?.outcomes[0]?.appended).toEqual(['after']);
    } finally {
      await close();
    }
  });
});
