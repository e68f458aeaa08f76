/** The README's AI SDK example runs as written (imports pointed at src/), over the file store and SQLite. */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UIMessage } from 'ai';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';

/** The ```ts block of the README's AI SDK subsection. */
async function example(): Promise<string> {
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('### AI SDK chats');
  const next = /\n#{1,6} /.exec(readme.slice(start + 1));
  const end = next === null ? readme.length : start + 1 + next.index;
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start, end))?.[1];
  if (start === -1 || block === undefined) throw new Error('the README has no AI SDK example');
  return block
    .replace("from 'chatstate/ai-sdk'", "from '../src/adapters/ai-sdk/index.js'")
    .replace("from 'chatstate/stores/file'", "from '../src/stores/file/index.js'");
}

interface ExampleModule {
  readonly reloaded: UIMessage[];
  readonly model: MockLanguageModelV3;
}

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

/** Writes `source` under .tmp/ and imports it with `CHAT_DIR` set to a fresh directory. */
async function run(name: string, source: string): Promise<ExampleModule> {
  const directory = await mkdtemp(join(tmpdir(), 'chatstate-aisdk-readme-'));
  directories.push(directory);
  const dir = new URL('../../../.tmp/', import.meta.url);
  await mkdir(dir, { recursive: true });
  const file = new URL(name, dir);
  await writeFile(file, source);
  const previous = process.env.CHAT_DIR;
  process.env.CHAT_DIR = directory;
  try {
    return (await import(file.href)) as ExampleModule;
  } finally {
    if (previous === undefined) delete process.env.CHAT_DIR;
    else process.env.CHAT_DIR = previous;
  }
}

function check(module: ExampleModule): void {
  // The reload after the first request: the tool call with its output, then the answer.
  expect(module.reloaded.map((message) => message.role)).toEqual(['user', 'assistant']);
  expect(module.reloaded[1]?.parts).toEqual([
    { type: 'step-start' },
    {
      type: 'tool-weather',
      toolCallId: 'call-1',
      state: 'output-available',
      input: { city: 'Paris' },
      output: { city: 'Paris', celsius: 21 },
    },
    { type: 'step-start' },
    { type: 'text', text: 'It is 21°C in Paris.', state: 'done' },
  ]);
  // The second request sent only "Thanks!": the model saw the first turn, read from the store.
  const prompt = module.model.doStreamCalls[2]?.prompt;
  expect(prompt?.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  expect(prompt?.[2]).toMatchObject({
    content: [{ type: 'tool-result', toolCallId: 'call-1', output: { type: 'json', value: { celsius: 21 } } }],
  });
  expect(prompt?.[4]).toMatchObject({ content: [{ type: 'text', text: 'Thanks!' }] });
}

describe('README: AI SDK chats', () => {
  it('runs the route example over the file store', async () => {
    check(await run('readme-ai-sdk-file.ts', await example()));
  });

  it('runs the same example over SQLite', async () => {
    const source = (await example())
      .replace(
        "import { fileStore } from '../src/stores/file/index.js';",
        "import { sqliteStore } from '../src/stores/sqlite/index.js';",
      )
      .replace(
        "fileStore(process.env.CHAT_DIR ?? '.chats')",
        "await sqliteStore(`${process.env.CHAT_DIR ?? '.'}/chats.db`)",
      );
    expect(source).toContain('sqliteStore(');
    check(await run('readme-ai-sdk-sqlite.ts', source));
  });
});
