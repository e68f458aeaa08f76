/** The README's LangGraph example is code a reader will paste: it must run as written. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("runs the README's LangGraph example against the library", async () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('### LangGraph');
  const end = readme.indexOf('\n#', start + 4);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(example).toBeDefined();
  const data = mkdtempSync(join(tmpdir(), 'chatstate-langgraph-readme-'));
  dirs.push(data);
  const runnable = (example as string)
    .replace("from 'chatstate/langgraph'", "from '../src/adapters/langgraph/index.js'")
    .replace("from 'chatstate/stores/sqlite'", "from '../src/stores/sqlite/index.js'")
    .replace("'./chat.db'", JSON.stringify(join(data, 'chat.db')));
  expect(runnable).not.toMatch(/from 'chatstate/);
  const dir = new URL('../../../.tmp/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL('readme-langgraph.ts', dir);
  writeFileSync(file, runnable);
  const logged: unknown[] = [];
  vi.spyOn(console, 'log').mockImplementation((value: unknown) => void logged.push(value));
  await import(`${file.href}?t=${Date.now()}`);
  expect(logged).toEqual([
    ['user: Hello', 'assistant: You said: Hello', 'user: Still there?', 'assistant: You said: Still there?'],
  ]);
});
