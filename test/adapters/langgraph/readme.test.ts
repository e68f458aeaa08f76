/** The LangGraph examples of docs/adapters.md and of the README are code a reader will paste: they must run as written. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { openStore } from '../../../src/stores/open-store.js';
import { docsExample, importExample, readmeExample } from '../../support/readme-example.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("runs docs/adapters.md's LangGraph example against the library", async () => {
  const data = mkdtempSync(join(tmpdir(), 'chatstate-langgraph-readme-'));
  dirs.push(data);
  const runnable = (await docsExample('docs/adapters.md', '## LangGraph')).replace(
    "'./chat.db'",
    JSON.stringify(join(data, 'chat.db')),
  );
  expect(runnable).not.toMatch(/from 'chatstate/);
  expect(runnable).toContain(data);
  const logged: unknown[] = [];
  vi.spyOn(console, 'log').mockImplementation((value: unknown) => void logged.push(value));
  await importExample('docs-langgraph.ts', runnable);
  expect(logged).toEqual([
    ['user: Hello', 'assistant: You said: Hello', 'user: Still there?', 'assistant: You said: Still there?'],
  ]);
});

it("runs the README's adapter example: the thread is the session its comment names", async () => {
  const data = mkdtempSync(join(tmpdir(), 'chatstate-langgraph-readme-'));
  dirs.push(data);
  const runnable = (await readmeExample('## Framework adapters')).replace(
    "'file:./.chatstate'",
    JSON.stringify(`file:${data}`),
  );
  expect(runnable).toContain(data);
  await importExample('readme-langgraph.ts', runnable);
  // "`npx chatstate show lg.rdemo` prints the thread"
  const id = /chatstate show (\S+)`/.exec(runnable)?.[1];
  expect(id).toBe('lg.rdemo');
  const store = await openStore(`file:${data}`);
  try {
    const session = await store.load(id as string);
    expect(session.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello from the graph'],
    ]);
  } finally {
    await store.close();
  }
});
