/** docs/runtime.md's examples run: the turn with the real `openai` client against the local protocol server, the recommended context as written. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startProtocolServer } from '../support/protocol-server.js';
import { docsExample, importExample } from '../support/readme-example.js';

describe('docs/runtime.md', () => {
  it('has a turn example that runs with the real openai client', async () => {
    const example = await docsExample('docs/runtime.md', '### A turn with a real model client');
    expect(example).toContain('conversation.send');
    const server = await startProtocolServer();
    const directory = await mkdtemp(join(tmpdir(), 'chatstate-docs-runtime-'));
    try {
      server.enqueue({
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'gpt-4.1-mini',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'Hello! Noted: green tea.', refusal: null },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
        },
      });
      const runnable = example
        .replace("'file:./sessions'", JSON.stringify(`file:${directory}`))
        .replace(
          'new OpenAI()',
          `new OpenAI({ apiKey: 'test', baseURL: ${JSON.stringify(`${server.url}/v1`)}, maxRetries: 0 })`,
        );
      expect(runnable).toContain(directory);
      expect(runnable).toContain(server.url);
      const module = await importExample<{
        reply: { content: unknown };
        session: { messages: unknown[]; agentId?: string };
        usage: { inputTokens: number };
      }>('docs-runtime-turn.ts', `${runnable}\nexport { reply, session, usage };\n`);
      expect(module.reply.content).toBe('Hello! Noted: green tea.');
      expect(module.session.messages).toHaveLength(2);
      expect(module.session.agentId).toBe('assistant');
      expect(module.usage.inputTokens).toBe(42);
      const sent = server.requests[0]?.body as {
        messages: Array<{ role: string }>;
        tools: Array<{ function: { name: string } }>;
      };
      // The system prompt is sent, not stored; memoryTools gives the model recall and remember.
      expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user']);
      expect(sent.tools.map((tool) => tool.function.name)).toEqual(['recall', 'remember']);
    } finally {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('has a recommended-context example that runs as written', async () => {
    const example = await docsExample('docs/runtime.md', '## The context: fitted to the model, and cached');
    expect(example).toContain('recommendedContext()');
    const module = await importExample<{ fitted: unknown }>(
      'docs-runtime-context.ts',
      `${example}\nexport { fitted };\n`,
    );
    // A short conversation with a known model: nothing to fit.
    expect(module.fitted).toBeUndefined();
  });
});
