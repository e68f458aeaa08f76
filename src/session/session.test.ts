import { describe, expect, it } from 'vitest';
import { tokenLimit } from '../compaction/token-limit.js';
import { Message } from '../message/message.js';
import { createCounter } from '../tokens/counter.js';
import { Session } from './session.js';
import { codeOf } from '../../test/support/errors.js';

function sample(): Session {
  return Session.create({ id: 'chat-1', agentId: 'planner', userId: 'u1' }).append(
    Message.system('You are terse.'),
    Message.user('Find the .el files'),
    Message.assistant('Searching.', { toolCalls: [{ id: 'call_1', name: 'glob', arguments: { pattern: '*.el' } }] }),
    Message.tool('call_1', 'a.el\nb.el'),
    Message.assistant('Found 2 files.'),
  );
}

describe('Session values', () => {
  it('start at version 0 and bump the version on every change, never mutating', () => {
    const empty = Session.create();
    const one = empty.append(Message.user('hi'));
    const agent = one.withAgent('coder');
    expect([empty.version, one.version, agent.version]).toEqual([0, 1, 2]);
    expect(empty.messages).toHaveLength(0);
    expect(one.agentId).toBeUndefined();
    expect(agent.agentId).toBe('coder');
    expect(Object.isFrozen(agent)).toBe(true);
    expect(Object.isFrozen(agent.messages)).toBe(true);
  });

  it('accept plain message inputs and validate them', () => {
    const session = Session.create().append({ role: 'user', content: 'plain' });
    expect(Message.is(session.messages[0])).toBe(true);
    expect(codeOf(() => Session.create().append({ role: 'user', content: '' }))).toBe('INVALID_MESSAGE');
  });

  it('keep variables as deep-frozen JSON and refuse reserved names and non-JSON values', () => {
    const session = Session.create().withVariable('plan', { steps: ['a', 'b'] });
    expect(session.variables.plan).toEqual({ steps: ['a', 'b'] });
    expect(Object.isFrozen((session.variables.plan as { steps: string[] }).steps)).toBe(true);
    expect(session.withVariable('plan', undefined).variables).toEqual({});
    expect(codeOf(() => session.withVariable('__proto__', 1))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => session.withVariable('x', (() => 1) as never))).toBe('INVALID_ARGUMENT');
  });

  it('share unchanged variables and metadata between versions, and never freeze the caller’s objects', () => {
    const variables = { plan: { steps: ['a', 'b'] } };
    const metadata = { topic: 'trips' };
    const first = Session.create({ variables, metadata });
    expect(Object.isFrozen(variables)).toBe(false);
    expect(Object.isFrozen(variables.plan)).toBe(false);
    expect(first.variables).not.toBe(variables);
    expect(Object.isFrozen(first.variables['plan'])).toBe(true);
    const next = first.append(Message.user('hi')).withAgent('planner');
    expect(next.variables).toBe(first.variables);
    expect(next.metadata).toBe(first.metadata);
    const changed = next.withVariable('mode', 'fast').withMetadata({ extra: 1 });
    expect(changed.variables).toEqual({ plan: { steps: ['a', 'b'] }, mode: 'fast' });
    expect(changed.metadata).toEqual({ topic: 'trips', extra: 1 });
    expect(Object.isFrozen(changed.variables) && Object.isFrozen(changed.metadata)).toBe(true);
    expect(first.variables).toEqual({ plan: { steps: ['a', 'b'] } });
  });

  it('reject hostile session ids', () => {
    expect(codeOf(() => Session.create({ id: '../x' }))).toBe('INVALID_ID');
    expect(codeOf(() => Session.create({ id: '__proto__' }))).toBe('INVALID_ID');
  });

  it('are told from a look-alike built on the prototype, which holds fields nothing checked', () => {
    const session = sample();
    expect(Session.is(session)).toBe(true);
    expect(Session.is(session.withVariable('x', 1))).toBe(true);
    expect(Session.is(Session.fromJSON(session.toJSON()))).toBe(true);
    const lookAlike: object = Object.assign(Object.create(Session.prototype) as object, {
      ...session,
      version: Number.NaN,
    });
    expect(lookAlike instanceof Session).toBe(true);
    expect(Session.is(lookAlike)).toBe(false);
    for (const value of [null, undefined, 42, {}, session.toJSON()]) expect(Session.is(value)).toBe(false);
  });

  it('filter by category', () => {
    expect(
      sample()
        .byCategory('tool_output')
        .map((m) => m.content),
    ).toEqual(['a.el\nb.el']);
  });
});

describe('JSON round trip', () => {
  it('keeps agent, user, variables, metadata, usage and every message field', () => {
    const session = sample()
      .withVariable('k', [1, 'two'])
      .withMetadata({ title: 'files' })
      .withUsage({ inputTokens: 120, outputTokens: 8 });
    const copy = Session.fromJSON(JSON.parse(JSON.stringify(session)));
    expect(copy.toJSON()).toEqual(session.toJSON());
    expect(copy.agentId).toBe('planner');
    expect(copy.lastUsage).toEqual({ inputTokens: 120, outputTokens: 8, messageCount: 5 });
    expect(Session.fromJSON(JSON.stringify(session)).messages).toEqual(session.messages);
  });

  it('carries a formatVersion and refuses newer ones', () => {
    const json = sample().toJSON();
    expect(json.formatVersion).toBe(1);
    expect(codeOf(() => Session.fromJSON({ ...json, formatVersion: 99 }))).toBe('INVALID_SESSION');
  });

  const broken: Array<[string, (json: Record<string, unknown>) => unknown]> = [
    ['not JSON text', () => '{oops'],
    ['not an object', () => 42],
    ['missing id', ({ id: _id, ...rest }) => rest],
    ['path traversal id', (json) => ({ ...json, id: '../../etc/passwd' })],
    ['negative version', (json) => ({ ...json, version: -1 })],
    ['bad message', (json) => ({ ...json, messages: [{ role: 'user' }] })],
    ['messages not an array', (json) => ({ ...json, messages: {} })],
    ['reserved variable', (json) => ({ ...json, variables: JSON.parse('{"__proto__": 1}') })],
    ['bad date', (json) => ({ ...json, createdAt: 'soon' })],
  ];
  it.each(broken)('%s is INVALID_SESSION or INVALID_ID', (_name, mutate) => {
    const json = JSON.parse(JSON.stringify(sample())) as Record<string, unknown>;
    expect(['INVALID_SESSION', 'INVALID_ID']).toContain(codeOf(() => Session.fromJSON(mutate(json))));
  });

  it('names the index of a bad message', () => {
    const json = JSON.parse(JSON.stringify(sample())) as { messages: unknown[] };
    json.messages[3] = { role: 'tool', content: 'no call id' };
    expect(() => Session.fromJSON(json)).toThrow(/message 3/);
  });
});

describe('stats and formatHistory', () => {
  it('count messages by role and category, tokens by category and tool calls by name', () => {
    const words = createCounter({
      name: 'words',
      countText: (text) => text.split(/\s+/).filter(Boolean).length,
      weights: { perMessage: 0, perToolCall: 0 },
    });
    const stats = sample().stats(words);
    expect(stats.messages).toBe(5);
    expect(stats.byRole).toEqual({ system: 1, user: 1, assistant: 2, tool: 1 });
    expect(stats.byCategory).toEqual({ system: 1, context: 0, dialog: 3, tool_output: 1 });
    expect(stats.toolCalls).toEqual({ total: 1, byName: { glob: 1 } });
    expect(stats.tokens.byCategory.tool_output).toBe(2 + 1);
    expect(stats.tokens.total).toBe(sample().tokenCount(words));
  });

  it('print Magent-style lines', () => {
    expect(sample().formatHistory()).toBe(
      [
        '[SYSTEM] You are terse.',
        '[USER] Find the .el files',
        '[ASSISTANT] Searching.',
        '[TOOL] tool_use: glob {"pattern":"*.el"}',
        '[TOOL] tool_result (glob): a.el b.el',
        '[ASSISTANT] Found 2 files.',
      ].join('\n'),
    );
    expect(sample().formatHistory({ includeSystem: false, maxChars: 8 }).split('\n')[0]).toBe('[USER] Find th…');
  });
});

describe('measured usage', () => {
  it('is used by tokenLimit instead of the estimate, and dropped once the history is compacted', () => {
    let session = Session.create();
    for (let i = 0; i < 6; i++)
      session = session.append(Message.user(`question ${i}`), Message.assistant(`answer ${i}`));
    const estimated = session.tokenCount();
    const compactor = tokenLimit({ maxTokens: estimated + 10 });
    expect(session.compact(compactor).result).toBeUndefined();
    // The provider measured far more than we estimate (e.g. a hidden tool schema in the prompt).
    const measured = session.withUsage({ inputTokens: estimated * 3, outputTokens: 5 });
    const { session: compacted, result } = measured.compact(compactor);
    expect(result?.compacted).toBe(true);
    expect(compacted.lastUsage).toBeUndefined();
    expect(compacted.messages.length).toBeLessThan(session.messages.length);
  });

  it('rejects impossible counts', () => {
    expect(codeOf(() => Session.create().withUsage({ inputTokens: -1 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => Session.create().withUsage({ inputTokens: 1.5 }))).toBe('INVALID_ARGUMENT');
  });
});

describe('Session edge cases (review regressions)', () => {
  const json = (session: Session): unknown => JSON.parse(JSON.stringify(session));

  it('rejects at create the variable names fromJSON rejects, so every session reads back', () => {
    for (const key of ['constructor', 'prototype']) {
      expect(codeOf(() => Session.create({ variables: { [key]: 1 } }))).toBe('INVALID_SESSION');
    }
    expect(
      codeOf(() => Session.create({ variables: JSON.parse('{"__proto__": {"x": 1}}') as Record<string, never> })),
    ).toBe('INVALID_SESSION');
  });

  it('stores only the known usage fields, validated, so toJSON reads back', () => {
    const withExtras = { inputTokens: 10, outputTokens: 3, totalTokens: 13 } as {
      inputTokens: number;
      outputTokens: number;
    };
    const session = Session.create().append(Message.user('hi')).withUsage(withExtras);
    expect(session.lastUsage).toEqual({ inputTokens: 10, outputTokens: 3, messageCount: 1 });
    expect(Session.fromJSON(json(session)).lastUsage).toEqual(session.lastUsage);
    expect(codeOf(() => Session.create().withUsage({ inputTokens: 10, cachedInputTokens: 1.5 }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(codeOf(() => Session.create().withUsage({ inputTokens: 10, cachedInputTokens: -1 }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(codeOf(() => Session.create().withUsage(null as never))).toBe('INVALID_ARGUMENT');
    // Cache reads and writes are kept and read back.
    const cached = Session.create().withUsage({ inputTokens: 10, cachedInputTokens: 6, cacheWriteInputTokens: 3 });
    expect(Session.fromJSON(json(cached)).lastUsage).toEqual({
      inputTokens: 10,
      cachedInputTokens: 6,
      cacheWriteInputTokens: 3,
      messageCount: 0,
    });
    expect(codeOf(() => Session.create().withUsage({ inputTokens: 10, cacheWriteInputTokens: -1 }))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('fromJSON rejects the ids assertValidId rejects', () => {
    const valid = json(Session.create({ id: 'abc' })) as Record<string, unknown>;
    for (const id of ['constructor', 'a..b', 'toString'])
      expect(codeOf(() => Session.fromJSON({ ...valid, id }))).toBe('INVALID_SESSION');
  });

  it('withMessages keeps measured usage only while the measured prefix is unchanged', () => {
    const measured = Session.create()
      .append(Message.user('a'), Message.assistant('b'))
      .withUsage({ inputTokens: 100_000 });
    expect(measured.withMessages([Message.user('x'), Message.assistant('y')]).lastUsage).toBeUndefined();
    expect(measured.withMessages([...measured.messages, Message.user('c')]).lastUsage).toEqual(measured.lastUsage);
  });

  it('validates the messages a custom strategy returns', () => {
    const session = Session.create().append(Message.user('hi'));
    const bad = {
      name: 'bad',
      compact: () => ({ messages: Object.freeze([{ role: 'user' }]), compacted: true }),
    } as never;
    expect(codeOf(() => session.compact(bad))).toBe('INVALID_MESSAGE');
    const plain = {
      name: 'plain',
      compact: () => ({ messages: [{ role: 'user', content: 'fresh' }], compacted: true }),
    } as never;
    const { session: next } = session.compact(plain) as { session: Session };
    expect(Message.is(next.messages[0])).toBe(true);
  });

  it('awaits a strategy that returns a non-native thenable', async () => {
    const session = Session.create().append(
      Message.user('a'),
      Message.assistant('b'),
      Message.user('c'),
      Message.assistant('d'),
    );
    const inner = tokenLimit({ maxTokens: 1 });
    const strategy = {
      name: 'thenable',
      compact: (input: Parameters<typeof inner.compact>[0]) => {
        const result = inner.compact(input);
        return { then: (resolve: (value: typeof result) => void) => resolve(result) } as unknown as Promise<
          typeof result
        >;
      },
    };
    const outcome = await session.compact(strategy);
    expect(outcome.result?.compacted).toBe(true);
    expect(outcome.session.messages.map((m) => Message.text(m))).toEqual(['c', 'd']);
  });

  it('formatHistory never splits a surrogate pair and rejects a non-positive maxChars', () => {
    const text = Session.create().append(Message.user('😀😀😀😀')).formatHistory({ maxChars: 2 });
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(codeOf(() => Session.create().append(Message.user('hello')).formatHistory({ maxChars: 0 }))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

describe('withStored', () => {
  it('rebuilds the same owner and state over stored messages at the stored version, sharing the messages', () => {
    const base = Session.create({ userId: 'u1', agentId: 'a1' })
      .withVariable('mood', 'calm')
      .append(Message.user('hi'));
    const messages = Object.freeze([...base.messages, Message.assistant('hello')]);
    const stored = base.withStored({ messages, version: 7 });
    expect(stored.messages).toBe(messages);
    expect(stored.version).toBe(7);
    expect({ id: stored.id, userId: stored.userId, agentId: stored.agentId, variables: stored.variables }).toEqual({
      id: base.id,
      userId: 'u1',
      agentId: 'a1',
      variables: { mood: 'calm' },
    });
    expect(Object.isFrozen(stored)).toBe(true);
  });

  it('refuses plain objects, bad versions and bad dates', () => {
    const base = Session.create();
    const plain = { ...Message.user('hi') };
    expect(codeOf(() => base.withStored({ messages: [plain as Message], version: 1 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => base.withStored({ messages: [], version: -1 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => base.withStored({ messages: [], version: 1.5 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => base.withStored({ messages: [], version: 1, updatedAt: 'yesterday' }))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('append keeps one copy of the history (the new array is the session’s own)', () => {
    const session = Session.create().append(Message.user('a'));
    const next = session.append(Message.assistant('b'));
    expect(Object.isFrozen(next.messages)).toBe(true);
    expect(next.messages[0]).toBe(session.messages[0]);
  });
});
