/**
 * `createServerApp({ agents })` embedded, through its fetch handler (no Node server): `Agent`s
 * given as objects run turns; their settings are checked when the app is made, each mistake a
 * typed error naming the agent; `turnSignal` aborts the turns in flight, which store nothing.
 */
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../support/errors.js';
import { createServerApp } from '../../src/server/app.js';
import type { ServerAgent } from '../../src/server/agents/server-agent.js';
import { memoryStore } from '../../src/stores/memory.js';
import { say, scriptedModel, waitForAbort } from '../support/scripted-model.js';

function post(app: ReturnType<typeof createServerApp>, path: string, body: unknown): Promise<Response> {
  return Promise.resolve(
    app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

describe('createServerApp with agents', () => {
  it('runs turns with Agent objects; with two agents and no default, a turn must name one', async () => {
    const store = memoryStore();
    const first = scriptedModel([say('one'), say('two')]);
    const second = scriptedModel([say('three')]);
    const app = createServerApp({
      store,
      agents: [
        { id: 'first', model: first, system: 'Be first.' },
        { id: 'second', model: second, maxIterations: 2 },
      ],
      log: () => undefined,
    });
    const refused = await post(app, '/sessions/s/turns', { input: 'hi' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('no default agent: give agentId'),
    });
    expect((await post(app, '/sessions/s/turns', { input: 'hi', agentId: 'first' })).status).toBe(201);
    // The session keeps its agent: the next turn needs no agentId.
    const next = await post(app, '/sessions/s/turns', { input: 'again' });
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ reply: { content: 'two' } });
    expect(first.requests[1]?.system).toBe('Be first.');
    const moved = await post(app, '/sessions/s/turns', { input: 'switch', agentId: 'second' });
    expect(await moved.json()).toMatchObject({ reply: { content: 'three' } });
    expect((await store.get('s'))?.agentId).toBe('second');
    await store.close();
  });

  it('checks the agents when the app is made, naming the one at fault', () => {
    const store = memoryStore();
    const model = scriptedModel();
    const make = (agents: readonly ServerAgent[], defaultAgentId?: string) => () =>
      createServerApp({ store, agents, ...(defaultAgentId === undefined ? {} : { defaultAgentId }) });
    expect(thrownBy(make([null as unknown as ServerAgent])).message).toBe('agents[0] must be an agent object');
    expect(thrownBy(make([{ id: 'a', model, maxIterations: 0 }])).message).toMatch(
      /^agent "a": maxIterations must be a positive integer/,
    );
    expect(thrownBy(make([{ id: 'a', model: {} as never }])).message).toMatch(/^agent "a": model must be a ChatModel/);
    expect(thrownBy(make([{ id: 'a', model, tools: [{ name: 'bad name', execute: () => 1 }] }])).message).toMatch(
      /^agent "a": /,
    );
    expect(
      thrownBy(
        make([
          { id: 'a', model },
          { id: 'a', model },
        ]),
      ).message,
    ).toBe('Two agents have the id "a"');
    expect(thrownBy(make([{ id: 'a', model }], 'b')).message).toMatch(/default agent "b" is not one of the agents/);
    expect(thrownBy(make([])).message).toBe('Give at least one agent');
    for (const error of [thrownBy(make([{ id: 'a', model, contextWindow: -1 }])), thrownBy(make([]))])
      expect(error.code).toBe('INVALID_ARGUMENT');
  });

  it('turnSignal aborts the turns in flight: their model calls get the abort, nothing is stored', async () => {
    const store = memoryStore();
    const model = scriptedModel([waitForAbort()]);
    const stop = new AbortController();
    const app = createServerApp({ store, agents: [{ id: 'a', model }], turnSignal: stop.signal, log: () => undefined });
    const answer = post(app, '/sessions/held/turns', { input: 'hi' });
    while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort();
    const response = await answer;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'ABORTED' });
    expect(model.requests[0]?.signal?.aborted).toBe(true);
    expect(await store.get('held')).toBeUndefined();
    await store.close();
  });
});
