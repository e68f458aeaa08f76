/**
 * The README is the front page: it starts with the two commands, and its examples are code a
 * newcomer will paste, so each runs (imports pointed at src/). Its shell blocks run in
 * test/docs/shell.test.ts, its "use it in your project" example in a fresh project in
 * test/docs/newcomer.test.ts, its LangGraph example in test/adapters/langgraph/readme.test.ts.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Session } from '../src/session/session.js';
import { codeBlocks, importExample, readmeExample } from './support/readme-example.js';

const directories: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

describe('README', () => {
  it('starts with the two commands, and nothing else in its first block', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const firstBlock = codeBlocks(readme, 'sh')[0] ?? '';
    const commands = firstBlock
      .trim()
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim());
    expect(commands).toEqual(['npm install && npm start', 'npm install && npm test']);
    // Nothing but the title and the pitch before it.
    expect(readme.slice(0, readme.indexOf('```sh')).match(/^#+ /gm)).toEqual(['# ']);
  });

  it('is a front page: at most about 300 lines', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('has a library example that runs a turn, printing what its comment says', async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
    const module = await importExample<{ session: Session }>(
      'readme-library.ts',
      `${await readmeExample('## The library')}\nexport { session };\n`,
    );
    expect(logged).toEqual([['You said: Hello!', 1]]);
    expect(module.session.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(module.session.userId).toBe('u-42');
  });

  it('has a stores example where the stale write gets CONFLICT and the change feed tells the append', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'chatstate-readme-stores-'));
    directories.push(directory);
    const source = (await readmeExample('## Stores')).replace(
      "'sqlite:./chat.db'",
      JSON.stringify(`sqlite:${join(directory, 'chat.db')}`),
    );
    expect(source).toContain(directory);
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
    await importExample('readme-stores.ts', source);
    // "replace chat-2 1, append chat-2 2": the save, the append; the stale write changed nothing.
    expect(logged).toEqual([
      ['replace', 'chat-2', 1],
      ['append', 'chat-2', 2],
    ]);
    const { openStore } = await import('../src/stores/open-store.js');
    const store = await openStore(`sqlite:${join(directory, 'chat.db')}`);
    try {
      const session = await store.load('chat-2');
      // The stale write changed nothing.
      expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(session.version).toBe(2);
    } finally {
      await store.close();
    }
  });
});
