/** The README's tour is code a newcomer will paste: it must run as written. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../src/message/message.js';
import type { Session } from '../src/session/session.js';
import { startProtocolServer } from './support/protocol-server.js';

describe('README', () => {
  it('starts with the two commands', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/npm start/);
    expect(firstBlock).toMatch(/npm test/);
  });

  /** Writes the README's tour as a module under .tmp/ and imports it with `STATE_KEY` set as given. */
  async function importTour(name: string, stateKey: string | undefined): Promise<Record<string, unknown>> {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const tour = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(tour).toBeDefined();
    const runnable = (tour as string).replace("from 'chatstate'", "from '../src/index.js'");
    const dir = new URL('../.tmp/', import.meta.url);
    await mkdir(dir, { recursive: true });
    const file = new URL(name, dir);
    await writeFile(file, `${runnable}\nexport { session, compacted, result, warnings, restored, rejected };\n`);
    const previous = process.env.STATE_KEY;
    if (stateKey === undefined) delete process.env.STATE_KEY;
    else process.env.STATE_KEY = stateKey;
    try {
      return (await import(file.href)) as Record<string, unknown>;
    } finally {
      if (previous === undefined) delete process.env.STATE_KEY;
      else process.env.STATE_KEY = previous;
    }
  }

  it('has a tour that runs against the library, as its comments say', async () => {
    const module = (await importTour('readme-tour.ts', 'a-test-key-that-is-long-enough')) as {
      session: Session;
      compacted: Session;
      result: unknown;
      restored: Message[];
      rejected: unknown;
      warnings: unknown[];
    };
    expect(module.rejected).toBeUndefined();
    expect(module.warnings).toEqual([]);
    // "here it is `undefined` and `compacted` is `session` itself"
    expect(module.result).toBeUndefined();
    expect(module.compacted.messages).toBe(module.session.messages);
    // "It leaves out the leading system message: `restored` holds the four messages after it"
    expect(module.session.messages[0]?.role).toBe('system');
    expect(module.restored.map((message) => message.id)).toEqual(
      module.session.messages.slice(1).map((message) => message.id),
    );
  });

  it('has a tour that says what is missing when STATE_KEY is not set', async () => {
    await expect(importTour('readme-tour-without-key.ts', undefined)).rejects.toThrow(
      'Set STATE_KEY to a secret of 16 or more characters',
    );
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
      const runnable = (example as string)
        .replace("from 'chatstate'", "from '../src/index.js'")
        .replace("'file:./sessions'", JSON.stringify(`file:${directory}`))
        .replace(
          'new OpenAI()',
          `new OpenAI({ apiKey: 'test', baseURL: ${JSON.stringify(`${server.url}/v1`)}, maxRetries: 0 })`,
        );
      const dir = new URL('../.tmp/', import.meta.url);
      await mkdir(dir, { recursive: true });
      const file = new URL('readme-turn.ts', dir);
      await writeFile(file, `${runnable}\nexport { reply, session, usage };\n`);
      const module = (await import(file.href)) as {
        reply: { content: unknown };
        session: { messages: unknown[]; agentId?: string };
        usage: { inputTokens: number };
      };
      expect(module.reply.content).toBe('Hello! Noted: green tea.');
      expect(module.session.messages).toHaveLength(2);
      expect(module.session.agentId).toBe('assistant');
      expect(module.usage.inputTokens).toBe(42);
      const sent = server.requests[0]?.body as {
        messages: Array<{ role: string }>;
        tools: Array<{ function: { name: string } }>;
      };
      expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user']);
      expect(sent.tools.map((tool) => tool.function.name)).toEqual(['recall', 'remember']);
    } finally {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
