/**
 * Every importer, given a path of the wrong kind or content that is not its system's (issue 21:
 * Penguin refused a session file with `ENOTDIR`, "not readable"): a typed error or problem that
 * says what the importer expected, never an operating-system code alone.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importerFor, importerNames } from './index.js';
import type { ImportItem } from './types.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-wrong-paths-'));
  await mkdir(join(dir, 'a-directory'));
  await writeFile(join(dir, 'notes.txt'), 'plain words, not JSON');
  await writeFile(join(dir, 'other.json'), '{"title": "some other program\'s file"}');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function readAll(system: string, path: string): Promise<ImportItem[]> {
  const items: ImportItem[] = [];
  for await (const item of (await importerFor(system)).read(path)) items.push(item);
  return items;
}

/** Per system: what its messages say it expected (of a path; of a file), and the kinds of path it reads. */
const SYSTEMS: Readonly<Record<string, { path: string; file: string; directories: boolean }>> = {
  penguin: {
    path: 'a Penguin conversations/ directory, or one of its session files (<id>.json)',
    file: 'a Penguin session file (<id>.json: a JSON object with "id" and "messages")',
    directories: true,
  },
  magent: {
    path: 'a Magent saved session .json file, or its sessions directory',
    file: 'a Magent saved session (a JSON object with timestamp, buffer-content or schema-version)',
    directories: true,
  },
  coreason: {
    path: 'a Coreason SessionState JSON dump (state.dump() / to_json()), or a directory of them (*.json)',
    file: 'a Coreason SessionState dump (a JSON object with agent_id, user_id, created_at, history)',
    directories: true,
  },
  goaitools: {
    path: 'a goaitools ConversationState blob (raw JSON or base64), or a directory of them',
    file: 'a goaitools ConversationState blob (a JSON object with version 1 and messages, or base64 of one)',
    directories: true,
  },
  langgraph: {
    path: 'a LangGraph.js SqliteSaver database file (each thread becomes a session)',
    file: 'a LangGraph.js SqliteSaver database file (each thread becomes a session)',
    directories: false,
  },
  'openai-agents': {
    path: 'an Agents SDK SQLiteSession database (Python), or a JSON array of AgentInputItems (JS)',
    file: 'an Agents SDK SQLiteSession database (Python), or a JSON array of AgentInputItems (JS)',
    directories: false,
  },
};

describe('every importer is covered here', () => {
  it('names each registered system', () => {
    expect(Object.keys(SYSTEMS).sort()).toEqual(importerNames());
  });
});

describe.each(Object.entries(SYSTEMS))('the %s importer, given the wrong thing', (system, expected) => {
  it('a path that does not exist: NOT_FOUND, saying what it expected', async () => {
    const absent = join(dir, 'absent');
    await expect(readAll(system, absent)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `${system}: ${absent} does not exist; expected ${expected.path}`,
      details: { path: absent },
    });
  });

  it(
    expected.directories
      ? 'a directory: read (an empty one has nothing to import)'
      : 'a directory: INVALID_ARGUMENT, saying it reads a file',
    async () => {
      const directory = join(dir, 'a-directory');
      if (expected.directories) expect(await readAll(system, directory)).toEqual([]);
      else
        await expect(readAll(system, directory)).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          message: `${system}: ${directory} is a directory; expected ${expected.path}`,
        });
    },
  );

  it('a file that is not JSON, and JSON of another program: refused, saying what a file must be', async () => {
    for (const name of ['notes.txt', 'other.json']) {
      const path = join(dir, name);
      const outcome = await readAll(system, path).then(
        (items) => ({ items }),
        (error: unknown) => ({ error }),
      );
      if ('error' in outcome) {
        // The SQLite readers refuse a file that is not a database before reading it.
        expect(outcome.error).toMatchObject({
          code: 'CORRUPT',
          message: `${system}: ${path} is not a SQLite database; expected ${expected.file}`,
        });
        continue;
      }
      expect(outcome.items).toHaveLength(1);
      const [problem] = outcome.items;
      expect(problem).toMatchObject({ kind: 'problem', code: name === 'notes.txt' ? 'CORRUPT' : 'INVALID_ARGUMENT' });
      expect(problem?.kind === 'problem' ? problem.message : '').toMatch(
        new RegExp(`; expected ${expected.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      );
    }
  });
});
