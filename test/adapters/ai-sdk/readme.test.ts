/** docs/adapters.md's AI SDK example runs as written (imports pointed at src/), over the file store and SQLite. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UIMessage } from 'ai';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { docsExample, importExample } from '../../support/readme-example.js';

/** The ```ts block of the AI SDK section of docs/adapters.md. */
function example(): Promise<string> {
  return docsExample('docs/adapters.md', '## AI SDK chats');
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
  const previous = process.env.CHAT_DIR;
  process.env.CHAT_DIR = directory;
  try {
    return await importExample<ExampleModule>(name, source);
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

describe('docs/adapters.md: AI SDK chats', () => {
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
