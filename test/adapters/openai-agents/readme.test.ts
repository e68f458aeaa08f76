/** The README's OpenAI Agents example is code a user will paste: it must run as written. */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTracingDisabled, type AgentInputItem, type RunResult } from '@openai/agents-core';
import type { ScriptedModel } from '@openai/agents-core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { formats } from '../../../src/formats/index.js';
import type { Session } from '../../../src/session/session.js';

setTracingDisabled(true);

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The ```ts block of the README's `chatstate/openai-agents` subsection, with imports pointed at src/. */
async function example(storeDir: string): Promise<string> {
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('### OpenAI Agents JS: `chatstate/openai-agents`');
  expect(start).toBeGreaterThan(0);
  const rest = readme.slice(start + 1);
  const section = rest.slice(0, rest.search(/\n#{2,3} /));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toBeDefined();
  return (code as string)
    .replace("from 'chatstate/openai-agents'", "from '../src/adapters/openai-agents/index.js'")
    .replace("from 'chatstate'", "from '../src/index.js'")
    .replace("'./.chatstate'", JSON.stringify(storeDir))
    .replace(/console\.log\(/g, 'void (');
}

describe('README: chatstate/openai-agents', () => {
  it('runs the example: two runs with a tool, the items back, the thread as a chatstate session', async () => {
    const storeDir = await mkdtemp(join(tmpdir(), 'chatstate-oareadme-'));
    dirs.push(storeDir);
    const dir = new URL('../../../.tmp/', import.meta.url);
    await mkdir(dir, { recursive: true });
    const file = new URL('readme-openai-agents.ts', dir);
    await writeFile(file, `${await example(storeDir)}\nexport { model, items, thread, second };\n`);
    const module = (await import(file.href)) as {
      model: ScriptedModel;
      items: AgentInputItem[];
      thread: Session;
      second: RunResult<never, never>;
    };
    expect(module.second.finalOutput).toBe('Yes, pack sunglasses.');
    // "the SDK's 6 items", and the roles the comment shows.
    expect(module.items).toHaveLength(6);
    expect(module.thread.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(formats.openaiChat.validate(formats.openaiChat.to(module.thread.messages))).toEqual([]);
    // "the model is sent the first run too": the second run's request starts with the first run's items.
    const request = module.model.calls[2]?.request.input as AgentInputItem[];
    expect(request.slice(0, 4)).toEqual(module.items.slice(0, 4));
  });
});
