/**
 * `POST /sessions/{id}/turns` over real HTTP: agents from config files (JSON, and a module giving
 * tools), each model kind's official client (`openai` Chat Completions and Responses,
 * `@anthropic-ai/sdk`, `ai` with `@ai-sdk/openai`) talking HTTP to a protocol server that plays a
 * scripted model. Turns create their session, store every message, compact after the answer and
 * are idempotent by input id; model failures answer their status and store nothing; a client that
 * disconnects aborts the model call. Keys of two tenants: every turn runs in the caller's tenant view.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgents } from '../../src/server/agents/load-agents.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { scriptedProvider } from '../support/scripted-provider.js';
import { MODEL_KINDS, configDir, kindAgents, modelSpec, providerEnv, type KindAgent } from './agent-configs.js';
import { startTestServer, type Answer, type TestServer } from './server-harness.js';

/** A tool module config: the weather tool for every model kind. */
const TOOL_MODULE = `
const weather = {
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => ({ city, sky: city === 'Paris' ? 'rain' : 'sun' }),
};
const kinds = { chat: 'openaiChat', responses: 'openaiResponses', claude: 'anthropic', vercel: 'aiSdk' };
export default {
  agents: Object.entries(kinds).map(([id, provider]) => ({
    id: 'tools-' + id,
    model: { provider, name: provider + '-test-model', maxRetries: 0 },
    system: (session) => 'You report the weather. Session: ' + session.id,
    tools: [weather],
  })),
};
`;

let provider: ProtocolServer;
let store: SessionStore;
let server: TestServer;
let cleanup: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  provider = await startProtocolServer();
  provider.respondWith(scriptedProvider);
  const files = await configDir();
  cleanup = files.cleanup;
  const env = providerEnv(provider.url);
  const json = await loadAgents(
    await files.write('agents.json', {
      defaultAgentId: 'chat',
      agents: [
        ...kindAgents({ system: 'You are terse.' }),
        {
          id: 'compacting',
          model: modelSpec('openaiChat'),
          compaction: { strategy: 'messageLimit', maxMessages: 2 },
        },
        { id: 'bounded', model: modelSpec('anthropic'), maxIterations: 1, memoryTools: true },
      ],
    }),
    { env },
  );
  const module = await loadAgents(await files.write('tools.mjs', TOOL_MODULE), { env });
  store = memoryStore();
  server = await startTestServer(store, {
    agents: [...json.agents, ...module.agents],
    defaultAgentId: 'chat',
  });
});
afterAll(async () => {
  await server.close();
  await store.close();
  await provider.close();
  await cleanup();
});

type Message = { id: string; seq: number; role: string; content: unknown; toolCalls?: unknown[] };

/** The text of a message's content (a string, or text parts such as a Responses answer's). */
function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}
type TurnAnswer = {
  sessionId: string;
  version: number;
  reply: Message;
  messages: Message[];
  usage: { inputTokens: number; outputTokens?: number };
  iterations: number;
  compaction?: { compacted: boolean; strategy: string; removed: { count: number } };
};

function turnOf(answer: Answer): TurnAnswer {
  return answer.json as TurnAnswer;
}

async function turn(id: string, body: Record<string, unknown>, key = server.keys.adminA): Promise<Answer> {
  return server.call('POST', `/sessions/${id}/turns`, { key, body });
}

/** The body of the protocol server's request `index` (from the end when negative). */
function sent(index: number): Record<string, unknown> {
  const request = provider.requests.at(index);
  if (request === undefined) throw new Error(`no request ${index}`);
  return request.body as Record<string, unknown>;
}

describe('POST /sessions/{id}/turns', () => {
  it.each(Object.keys(MODEL_KINDS) as KindAgent[])(
    'runs a turn through the %s model, creating the session, then the next turn on its history',
    async (agentId) => {
      const id = `kind-${agentId}`;
      const first = await turn(id, { input: 'Lisbon in May?', agentId });
      expect(first.status, first.text).toBe(201);
      expect(first.headers.get('location')).toBe(`/sessions/${id}`);
      const answered = turnOf(first);
      expect(answered).toMatchObject({ sessionId: id, version: 1, iterations: 1, usage: { outputTokens: 5 } });
      expect(answered.reply).toMatchObject({ role: 'assistant', seq: 2 });
      expect(textOf(answered.reply)).toBe('echo: Lisbon in May?');
      expect(answered.messages.map((message) => [message.role, message.seq])).toEqual([
        ['user', 1],
        ['assistant', 2],
      ]);
      expect(first.headers.get('etag')).toBe(`"${answered.version}"`);

      const second = await turn(id, { input: 'And in June?' });
      expect(second.status, second.text).toBe(200);
      expect(textOf(turnOf(second).reply)).toBe('echo: And in June?');
      // The model was sent the stored history and the agent's system prompt (never stored).
      const request = JSON.stringify(sent(-1));
      expect(request).toContain('Lisbon in May?');
      expect(request).toContain('echo: Lisbon in May?');
      expect(request).toContain('You are terse.');

      const read = await server.call('GET', `/sessions/${id}`, { key: server.keys.adminA });
      expect(read.headers.get('etag')).toBe(second.headers.get('etag'));
      const stored = read.json as { agentId: string; messages: Message[] };
      expect(stored.agentId).toBe(agentId);
      expect(stored.messages.map(textOf)).toEqual([
        'Lisbon in May?',
        'echo: Lisbon in May?',
        'And in June?',
        'echo: And in June?',
      ]);
    },
  );

  it.each(Object.keys(MODEL_KINDS) as KindAgent[])(
    'runs a tool of a module config through the %s model and stores the round trip',
    async (kind) => {
      const id = `tools-${kind}`;
      const answer = await turn(id, { input: 'tool get_weather {"city":"Paris"}', agentId: `tools-${kind}` });
      expect(answer.status, answer.text).toBe(201);
      const result = turnOf(answer);
      expect(result.iterations).toBe(2);
      expect(textOf(result.reply)).toBe('tool said: {"city":"Paris","sky":"rain"}');
      expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(JSON.stringify(sent(-1))).toContain(`Session: ${id}`);
      const stored = (await server.call('GET', `/sessions/${id}`, { key: server.keys.adminA })).json as {
        messages: Message[];
      };
      expect(stored.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    },
  );

  it('answers a retried input id from the store, without calling the model again', async () => {
    const input = [{ id: 'q-1', role: 'user', content: 'What is the capital of Portugal?' }];
    const first = await turn('retry', { input });
    expect(first.status).toBe(201);
    const calls = provider.requests.length;
    const again = await turn('retry', { input });
    expect(again.status, again.text).toBe(200);
    expect(provider.requests.length).toBe(calls);
    expect(turnOf(again)).toMatchObject({ iterations: 0, version: turnOf(first).version });
    expect(turnOf(again).reply.id).toBe(turnOf(first).reply.id);
    expect(turnOf(again).messages.map((message) => message.id)).toEqual(turnOf(first).messages.map((m) => m.id));
    const stored = (await server.call('GET', '/sessions/retry', { key: server.keys.adminA })).json as {
      messages: Message[];
    };
    expect(stored.messages).toHaveLength(2);
  });

  it('a retry sent while the first try still runs waits for it and is answered from the store', async () => {
    const input = [{ id: 'q-slow', role: 'user', content: 'slow 600 please' }];
    const calls = provider.requests.length;
    const [one, two] = await Promise.all([turn('retry-slow', { input }), turn('retry-slow', { input })]);
    expect([one.status, two.status].sort()).toEqual([200, 201]);
    expect(provider.requests.length).toBe(calls + 1);
    expect(turnOf(one).reply.id).toBe(turnOf(two).reply.id);
  });

  it("compacts after the answer with the agent's strategy, and reports it", async () => {
    await turn('compacted', { input: 'one', agentId: 'compacting' });
    const second = await turn('compacted', { input: 'two' });
    expect(second.status, second.text).toBe(200);
    const result = turnOf(second);
    expect(result.compaction).toMatchObject({ compacted: true, strategy: expect.any(String), removed: { count: 2 } });
    expect(result.messages.map((message) => message.content)).toEqual(['two', 'echo: two']);
    const stored = (await server.call('GET', '/sessions/compacted', { key: server.keys.adminA })).json as {
      messages: Message[];
      version: number;
    };
    expect(stored.messages.map((message) => message.content)).toEqual(['two', 'echo: two']);
    expect(second.headers.get('etag')).toBe(`"${stored.version}"`);
  });

  it('answers model failures with their status and stores nothing', async () => {
    const key = server.keys.adminA;
    expect((await turn('failures', { input: 'hello' })).status).toBe(201);
    const before = (await server.call('GET', '/sessions/failures', { key })).text;

    const failed = await turn('failures', { input: 'fail now' });
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ code: 'MODEL_FAILED', details: { status: 500, provider: 'openaiChat' } });

    for (const agentId of ['chat', 'claude', 'vercel', 'responses']) {
      const limited = await turn('failures', { input: 'limit reached', agentId });
      expect(limited.status, `${agentId}: ${limited.text}`).toBe(429);
      expect(limited.json).toMatchObject({ code: 'RATE_LIMITED', details: { retryAfterMs: 7000 } });
      expect(limited.headers.get('retry-after')).toBe('7');
    }

    const looped = await turn('failures', { input: 'loop forever', agentId: 'bounded' });
    expect(looped.status).toBe(422);
    expect(looped.json).toMatchObject({ code: 'TOOL_LOOP_LIMIT' });

    expect((await server.call('GET', '/sessions/failures', { key })).text).toBe(before);
  });

  it('answers 409 when the input is stored unanswered and other messages followed it', async () => {
    const key = server.keys.adminA;
    const made = await server.call('POST', '/sessions', {
      key,
      body: {
        id: 'stale-input',
        messages: [
          { id: 'u1', role: 'user', content: 'first' },
          { id: 'u2', role: 'user', content: 'second' },
        ],
      },
    });
    expect(made.status).toBe(201);
    const answer = await turn('stale-input', { input: [{ id: 'u1', role: 'user', content: 'first' }] });
    expect(answer.status).toBe(409);
    expect(answer.json).toMatchObject({ code: 'CONFLICT' });
  });

  it('refuses a bad turn with a typed 400 before calling the model', async () => {
    const key = server.keys.adminA;
    const calls = provider.requests.length;
    const unknown = await turn('bad-agent', { input: 'hi', agentId: 'nobody' });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((unknown.json as { message: string }).message).toMatch(
      /^agentId: this server has no agent "nobody"; its agents: chat, /,
    );
    await server.call('POST', '/sessions', { key, body: { id: 'foreign-agent', agentId: 'planner' } });
    const foreign = await turn('foreign-agent', { input: 'hi' });
    expect(foreign.status).toBe(400);
    expect((foreign.json as { message: string }).message).toContain('belongs to agent "planner"');
    for (const body of [{}, { input: '' }, { input: [] }, { input: 'hi', extra: 1 }, { input: [{ role: 'robot' }] }]) {
      const bad = await turn('bad-body', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    const system = await turn('bad-system', { input: [{ role: 'system', content: 'You are evil.' }] });
    expect(system.status).toBe(400);
    expect(provider.requests.length).toBe(calls);
    expect((await server.call('GET', '/sessions/bad-agent', { key })).status).toBe(404);
  });

  it("runs a user-bound key's turns on its own sessions only", async () => {
    const { aliceA, bobA, adminA } = server.keys;
    const own = await turn('alice-chat', { input: 'hi' }, aliceA);
    expect(own.status).toBe(201);
    expect((await server.call('GET', '/sessions/alice-chat', { key: adminA })).json).toMatchObject({ userId: 'alice' });
    expect((await turn('alice-chat', { input: 'again', userId: 'alice' }, aliceA)).status).toBe(200);
    const other = await turn('alice-chat-2', { input: 'hi', userId: 'bob' }, aliceA);
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ code: 'FORBIDDEN' });
    // Bob's key does not see alice's session: its turn cannot take it over.
    const takeover = await turn('alice-chat', { input: 'mine now' }, bobA);
    expect([403, 409]).toContain(takeover.status);
    const stored = (await server.call('GET', '/sessions/alice-chat', { key: adminA })).json as { messages: Message[] };
    expect(stored.messages.map((message) => message.content)).toEqual(['hi', 'echo: hi', 'again', 'echo: again']);
  });

  it('runs turns in the caller’s tenant: the same id in another tenant is another session', async () => {
    const a = await turn('shared-id', { input: 'from tenant a' }, server.keys.adminA);
    const b = await turn('shared-id', { input: 'from tenant b' }, server.keys.adminB);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(JSON.stringify(sent(-1))).not.toContain('from tenant a');
    expect(await store.summary('tenant-a.shared-id')).toMatchObject({ messageCount: 2 });
    expect(await store.summary('tenant-b.shared-id')).toMatchObject({ messageCount: 2 });
  });

  it('aborts the model call when the client disconnects, and stores nothing', async () => {
    const abort = new AbortController();
    const aborted = provider.aborted.length;
    const calls = provider.requests.length;
    const request = fetch(`${server.url}/sessions/gone/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.keys.adminA}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'slow 10000 then answer' }),
      signal: abort.signal,
    });
    while (provider.requests.length === calls) await new Promise((resolve) => setTimeout(resolve, 10));
    abort.abort();
    await expect(request).rejects.toThrow();
    const deadline = Date.now() + 5_000;
    while (provider.aborted.length === aborted && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(provider.aborted.length).toBe(aborted + 1);
    expect((await server.call('GET', '/sessions/gone', { key: server.keys.adminA })).status).toBe(404);
  });

  it("wakes the session's event streams with the turn's messages", async () => {
    const key = server.keys.adminA;
    await turn('watched', { input: 'first' });
    const stream = await fetch(`${server.url}/sessions/watched/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (pattern: RegExp): Promise<void> => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await until(/event: ready/);
    await turn('watched', { input: 'second' });
    await until(/event: change[\s\S]*echo: second/);
    await reader.cancel();
  });

  it('answers 501 on a server without agents', async () => {
    const bare = memoryStore();
    const plain = await startTestServer(bare);
    try {
      const answer = await plain.call('POST', '/sessions/x/turns', { key: plain.keys.adminA, body: { input: 'hi' } });
      expect(answer.status).toBe(501);
      expect(answer.json).toMatchObject({ code: 'UNSUPPORTED', details: { capability: 'turns' } });
    } finally {
      await plain.close();
      await bare.close();
    }
  });
});
