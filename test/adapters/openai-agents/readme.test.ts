/** docs/adapters.md's OpenAI Agents example is code a user will paste: it must run as written. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTracingDisabled, type AgentInputItem, type RunResult } from '@openai/agents-core';
import type { ScriptedModel } from '@openai/agents-core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { formats } from '../../../src/formats/index.js';
import type { Session } from '../../../src/session/session.js';
import { docsExample, importExample } from '../../support/readme-example.js';

setTracingDisabled(true);

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The ```ts block of the `chatstate/openai-agents` section of docs/adapters.md, with imports pointed at src/. */
async function example(storeDir: string): Promise<string> {
  return (await docsExample('docs/adapters.md', '## OpenAI Agents JS: `chatstate/openai-agents`'))
    .replace("'./.chatstate'", JSON.stringify(storeDir))
    .replace(/console\.log\(/g, 'void (');
}

describe('docs/adapters.md: chatstate/openai-agents', () => {
  it('runs the example: two runs with a tool, the items back, the thread as a chatstate session', async () => {
    const storeDir = await mkdtemp(join(tmpdir(), 'chatstate-oareadme-'));
    dirs.push(storeDir);
    const module = await importExample<{
      model: ScriptedModel;
      items: AgentInputItem[];
      thread: Session;
      second: RunResult<never, never>;
    }>('readme-openai-agents.ts', `${await example(storeDir)}\nexport { model, items, thread, second };\n`);
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
