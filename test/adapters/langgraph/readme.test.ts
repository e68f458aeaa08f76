/** The README's LangGraph example is code a reader will paste: it must run as written. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { importExample, readmeExample } from '../../support/readme-example.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("runs the README's LangGraph example against the library", async () => {
  const data = mkdtempSync(join(tmpdir(), 'chatstate-langgraph-readme-'));
  dirs.push(data);
  const runnable = (await readmeExample('### LangGraph')).replace("'./chat.db'", JSON.stringify(join(data, 'chat.db')));
  expect(runnable).not.toMatch(/from 'chatstate/);
  const logged: unknown[] = [];
  vi.spyOn(console, 'log').mockImplementation((value: unknown) => void logged.push(value));
  await importExample('readme-langgraph.ts', runnable);
  expect(logged).toEqual([
    ['user: Hello', 'assistant: You said: Hello', 'user: Still there?', 'assistant: You said: Still there?'],
  ]);
});
