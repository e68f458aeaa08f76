/** The README's tour is code a newcomer will paste: it must run as written. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startProtocolServer } from './support/protocol-server.js';

describe('README', () => {
  it('starts with the two commands', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/npm start/);
    expect(firstBlock).toMatch(/npm test/);
  });

  it('has a tour that runs against the library', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const tour = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(tour).toBeDefined();
    const runnable = (tour as string)
      .replace("from 'chatstate'", "from '../src/index.js'")
      .replaceAll('process.env.STATE_KEY!', "'a-test-key-that-is-long-enough'");
    const dir = new URL('../.tmp/', import.meta.url);
    await mkdir(dir, { recursive: true });
    const file = new URL('readme-tour.ts', dir);
    await writeFile(file, `${runnable}\nexport { session, compacted, result, warnings, restored, rejected };\n`);
    const module = (await import(file.href)) as { restored: unknown[]; rejected: unknown; warnings: unknown[] };
    expect(module.rejected).toBeUndefined();
    expect(module.restored.length).toBeGreaterThan(0);
    expect(module.warnings).toEqual([]);
  });

  it('has a turn example that runs with the real openai client (against the local protocol server)', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const example = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)][1]?.[1];
    expect(example).toContain('conversation.send');
    const server = await startProtocolServer();
    const directory = await mkdtemp(join(tmpdir(), 'chatstate-readme-'));
    try {
      server.enqueue({
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'gpt-4.1-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! Noted: green tea.', refusal: null }, finish_reason: 'stop', logprobs: null }],
          usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
        },
      });
      const runnable = (example as string)
        .replace("from 'chatstate'", "from '../src/index.js'")
        .replace("'file:./sessions'", JSON.stringify(`file:${directory}`))
        .replace('new OpenAI()', `new OpenAI({ apiKey: 'test', baseURL: ${JSON.stringify(`${server.url}/v1`)}, maxRetries: 0 })`);
      const dir = new URL('../.tmp/', import.meta.url);
      await mkdir(dir, { recursive: true });
      const file = new URL('readme-turn.ts', dir);
      await writeFile(file, `${runnable}\nexport { reply, session, usage };\n`);
      const module = (await import(file.href)) as { reply: { content: unknown }; session: { messages: unknown[]; agentId?: string }; usage: { inputTokens: number } };
      expect(module.reply.content).toBe('Hello! Noted: green tea.');
      expect(module.session.messages).toHaveLength(2);
      expect(module.session.agentId).toBe('assistant');
      expect(module.usage.inputTokens).toBe(42);
      const sent = server.requests[0]?.body as { messages: Array<{ role: string }>; tools: Array<{ function: { name: string } }> };
      expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user']);
      expect(sent.tools.map((tool) => tool.function.name)).toEqual(['recall', 'remember']);
    } finally {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
