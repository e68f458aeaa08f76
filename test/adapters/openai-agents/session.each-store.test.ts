/**
 * `chatstateSession` on every store: items back deep-equal, bounded reads, pops that rewrite the
 * message holding the item, two writers without a lost item, typed errors for bad input (nothing
 * written), history transactions through the runner, and compaction by chatstate's compactors.
 */
import type { Agent } from '@openai/agents-core';
import {
  OutputGuardrailTripwireTriggered,
  run,
  type AgentInputItem,
  isOpenAIResponsesCompactionAwareSession,
  isSessionHistoryTransactionAwareSession,
  protocol,
} from '@openai/agents-core';
import { assistantMessage, functionCall } from '@openai/agents-core/testing';
import { expect, it, vi } from 'vitest';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import { compaction } from '../../../src/compaction/index.js';
import { triggers } from '../../../src/compaction/triggers.js';
import type { CompactionResult } from '../../../src/compaction/types.js';
import { ChatstateError } from '../../../src/errors.js';
import { formats } from '../../../src/formats/index.js';
import { Message } from '../../../src/message/message.js';
import { Session } from '../../../src/session/session.js';
import { openStore } from '../../../src/stores/open-store.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { scriptedAgent } from './agent-fixture.js';

const user = (text: string): AgentInputItem => ({ role: 'user', content: [{ type: 'input_text', text }] });

/** Items of every kind the SDK keeps: messages of each role and part, calls, results, reasoning, hosted calls. */
const MIXED: AgentInputItem[] = [
  { role: 'system', content: 'Be brief.' },
  { type: 'message', role: 'system', content: 'Use metric units.', providerData: { cache: 'ephemeral' } },
  {
    role: 'user',
    content: [
      { type: 'input_text', text: 'What is in this picture?' },
      { type: 'input_image', image: 'https://example.com/cat.png', detail: 'low' },
      { type: 'input_file', file: { id: 'file-123' }, filename: 'notes.pdf' },
    ],
  },
  {
    type: 'reasoning',
    id: 'rs_1',
    content: [{ type: 'input_text', text: 'A cat, probably.' }],
    providerData: { encrypted: 'x' },
  },
  {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [
      { type: 'output_text', text: 'A cat.', providerData: { annotations: [] } },
      { type: 'refusal', refusal: 'No names.' },
    ],
  },
  {
    type: 'function_call',
    id: 'fc_1',
    callId: 'call_1',
    name: 'lookup',
    arguments: '{"q":"cat"}',
    status: 'completed',
  },
  { type: 'function_call', callId: 'call_2', name: 'lookup', arguments: '{"q":"dog"}', status: 'completed' },
  { type: 'function_call_result', callId: 'call_1', name: 'lookup', status: 'completed', output: 'a small feline' },
  {
    type: 'function_call_result',
    callId: 'call_2',
    name: 'lookup',
    status: 'completed',
    output: [{ type: 'input_text', text: 'a loyal canine' }],
  },
  {
    type: 'hosted_tool_call',
    id: 'ws_1',
    name: 'web_search_call',
    status: 'completed',
    providerData: { action: { query: 'cats' } },
  },
  { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.' }] },
  { type: 'unknown', id: 'future_1', providerData: { anything: [1, 2, 3] } },
] as AgentInputItem[];

function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => (ChatstateError.isInstance(error) ? error.code : `untyped: ${String(error)}`),
  );
}

await describeEveryStore(
  'openai-agents session',
  (subject) => {
    const stores = storesOf(subject);

    it('declares the transaction and compaction capabilities', async () => {
      const session = chatstateSession({ store: await stores.open() });
      expect(isSessionHistoryTransactionAwareSession(session)).toBe(true);
      expect(isOpenAIResponsesCompactionAwareSession(session)).toBe(true);
      expect(await session.getSessionId()).toMatch(/^agents_/);
    });

    it('gives every kind of item back deep-equal, in one batch or one by one, after a restart', async () => {
      const store = await stores.open();
      const batch = chatstateSession({ store, sessionId: 'mixed-batch' });
      await batch.addItems(MIXED);
      const single = chatstateSession({ store, sessionId: 'mixed-single' });
      for (const item of MIXED) await single.addItems([item]);
      expect(await batch.getItems()).toEqual(MIXED);
      expect(await single.getItems()).toEqual(MIXED);
      const reopened = await stores.reopen(store);
      expect(await chatstateSession({ store: reopened, sessionId: 'mixed-batch' }).getItems()).toEqual(MIXED);
      for (let limit = 1; limit <= MIXED.length + 1; limit++)
        expect(await chatstateSession({ store: reopened, sessionId: 'mixed-batch' }).getItems(limit)).toEqual(
          MIXED.slice(-limit),
        );
      // The stored thread is a normal conversation: calls paired with their results, a title.
      const stored = await reopened.load('mixed-batch');
      expect(formats.openaiResponses.validate(formats.openaiResponses.to(stored.messages))).toEqual([]);
      expect(formats.openaiChat.validate(formats.openaiChat.to(stored.messages))).toEqual([]);
      expect((await reopened.summary('mixed-batch'))?.title).toBe('What is in this picture?');
    });

    it('reads getItems(limit) with one bounded range read', async () => {
      const store = await stores.open();
      const session = chatstateSession({ store, sessionId: 'bounded' });
      for (let turn = 0; turn < 30; turn++) await session.addItems([user(`q${turn}`)]);
      const read = vi.spyOn(store, 'readMessages');
      expect(await session.getItems(3)).toEqual([user('q27'), user('q28'), user('q29')]);
      expect(read.mock.calls).toEqual([['bounded', { limit: 3 }]]);
      expect(await session.getItems(0)).toEqual([]);
      read.mockRestore();
    });

    it('returns copies: changing what it returned or was given changes nothing stored', async () => {
      const session = chatstateSession({ store: await stores.open(), sessionId: 'copies' });
      const given = user('start');
      await session.addItems([given]);
      (given as { content: unknown }).content = 'mutated';
      const read = await session.getItems();
      (read[0] as { content: unknown }).content = 'mutated';
      expect(await session.getItems()).toEqual([user('start')]);
    });

    it('pops the newest item out of the message that holds it, down to an empty session', async () => {
      const store = await stores.open();
      const session = chatstateSession({ store, sessionId: 'pops' });
      await session.addItems(MIXED);
      const popped: AgentInputItem[] = [];
      for (let item = await session.popItem(); item !== undefined; item = await session.popItem()) {
        popped.unshift(item);
        // The rest is still exact, and still a valid thread after each pop.
        expect(await session.getItems()).toEqual(MIXED.slice(0, MIXED.length - popped.length));
      }
      expect(popped).toEqual(MIXED);
      expect((await store.load('pops')).messages).toEqual([]);
      expect(await session.popItem()).toBeUndefined();
    });

    it('two session instances on one thread popping and adding at once lose no item', async () => {
      const store = await stores.open();
      const first = chatstateSession({ store, sessionId: 'shared', maxAttempts: 50 });
      const second = chatstateSession({ store, sessionId: 'shared', maxAttempts: 50 });
      await first.addItems(Array.from({ length: 12 }, (_, index) => user(`old ${index}`)));
      const added = Array.from({ length: 6 }, (_, index) => user(`new ${index}`));
      const results = await Promise.allSettled([
        ...Array.from({ length: 4 }, () => first.popItem()),
        ...Array.from({ length: 4 }, () => second.popItem()),
        ...added.map((item, index) => (index % 2 === 0 ? first : second).addItems([item])),
      ]);
      const popped: AgentInputItem[] = [];
      for (const result of results) {
        if (result.status === 'rejected') {
          // Only a typed CONFLICT may end an attempt (then that pop did not happen).
          expect(ChatstateError.hasCode(result.reason, 'CONFLICT')).toBe(true);
        } else if (result.value !== undefined) popped.push(result.value);
      }
      const left = await first.getItems();
      const text = (item: AgentInputItem): string => JSON.stringify(item);
      // Every item ever added is either still there or was returned by exactly one pop.
      const everything = [...Array.from({ length: 12 }, (_, index) => user(`old ${index}`)), ...added];
      expect([...left, ...popped].map(text).sort()).toEqual(everything.map(text).sort());
      expect(new Set(popped.map(text)).size).toBe(popped.length);
    });

    it('two stores over the same data (as two processes have) popping and adding lose no item', async () => {
      const store = await stores.open();
      const url = subject.url(store);
      // The memory store's data lives in one store object: the case above covers it.
      const other = url === undefined ? store : await openStore(url);
      try {
        const first = chatstateSession({ store, sessionId: 'two-stores', maxAttempts: 50 });
        const second = chatstateSession({ store: other, sessionId: 'two-stores', maxAttempts: 50 });
        const old = Array.from({ length: 8 }, (_, index) => user(`old ${index}`));
        await first.addItems(old);
        const added = Array.from({ length: 4 }, (_, index) => user(`new ${index}`));
        const results = await Promise.all([
          first.popItem(),
          second.popItem(),
          first.popItem(),
          second.popItem(),
          ...added.map((item, index) => (index % 2 === 0 ? first : second).addItems([item])),
        ]);
        const popped = results.filter((result): result is AgentInputItem => result !== undefined);
        expect(popped).toHaveLength(4);
        const text = (item: AgentInputItem): string => JSON.stringify(item);
        const left = await second.getItems();
        expect([...left, ...popped].map(text).sort()).toEqual([...old, ...added].map(text).sort());
      } finally {
        if (other !== store) await other.close();
      }
    });

    it('two clearSession and addItems at once: a clear removes what it saw, an add after it stays', async () => {
      const store = await stores.open();
      const first = chatstateSession({ store, sessionId: 'clearing' });
      const second = chatstateSession({ store, sessionId: 'clearing' });
      await first.addItems([user('a'), user('b')]);
      await Promise.all([first.clearSession(), second.addItems([user('c')])]);
      const left = await second.getItems();
      expect([[], [user('c')]]).toContainEqual(left);
      await second.addItems([user('d')]);
      expect((await first.getItems()).at(-1)).toEqual(user('d'));
    });

    it('refuses bad input with typed errors and writes nothing', async () => {
      const store = await stores.open();
      const session = chatstateSession({ store, sessionId: 'bad-input' });
      await session.addItems([user('kept')]);
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      const bad: Array<[string, unknown[]]> = [
        ['not an item', [42]],
        ['no call id', [{ type: 'function_call', name: 'x', arguments: '{}' }]],
        ['a Date', [{ ...user('x'), providerData: { at: new Date(0) } }]],
        ['a cycle', [{ ...user('x'), providerData: cyclic }]],
        ['a bigint', [{ ...user('x'), providerData: { n: 1n } }]],
        ['not an array', 'hello' as unknown as unknown[]],
      ];
      for (const [, items] of bad)
        expect(await codeOf(session.addItems(items as AgentInputItem[]))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(session.getItems(1.5))).toBe('INVALID_ARGUMENT');
      expect(() => chatstateSession({ store, sessionId: '../etc/passwd' })).toThrow(
        expect.objectContaining({ code: 'INVALID_ID' }),
      );
      expect(() => chatstateSession({ store, maxAttempts: 0 })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
      expect(await codeOf(session.replaceHistoryWithCompaction([{ nope: true } as unknown as AgentInputItem]))).toBe(
        'INVALID_ARGUMENT',
      );
      expect(await session.getItems()).toEqual([user('kept')]);
      expect((await store.load('bad-input')).version).toBe(2);
    });

    it('one transaction applied by two instances at once is applied once', async () => {
      const store = await stores.open();
      const first = chatstateSession({ store, sessionId: 'same-operation', maxAttempts: 20 });
      const second = chatstateSession({ store, sessionId: 'same-operation', maxAttempts: 20 });
      await first.addItems([user('start')]);
      const args = { operationId: 'turn-1', transaction: { type: 'append_items' as const, items: [user('once')] } };
      await Promise.all([
        first.applyHistoryTransaction(args),
        second.applyHistoryTransaction(args),
        first.applyHistoryTransaction(args),
      ]);
      expect(await second.getItems()).toEqual([user('start'), user('once')]);
    });

    it('an operation id reused for items that differ only under a "__proto__" key is CONFLICT, not a retry', async () => {
      const store = await stores.open();
      const session = chatstateSession({ store, sessionId: 'proto-operation' });
      const tagged = (tier: string): AgentInputItem =>
        JSON.parse(
          `{"role":"user","content":[{"type":"input_text","text":"hi"}],"providerData":{"__proto__":{"tier":"${tier}"}}}`,
        ) as AgentInputItem;
      const apply = (tier: string): Promise<void> =>
        session.applyHistoryTransaction({
          operationId: 'turn-1',
          transaction: { type: 'append_items', items: [tagged(tier)] },
        });
      await apply('free');
      await apply('free');
      expect(await codeOf(apply('paid'))).toBe('CONFLICT');
      const items = await session.getItems();
      expect(items).toHaveLength(1);
      const data = (items[0] as { providerData?: Record<string, unknown> }).providerData ?? {};
      expect(Object.hasOwn(data, '__proto__')).toBe(true);
      expect(JSON.stringify(data)).toBe('{"__proto__":{"tier":"free"}}');
    });

    it('items no message can hold (reasoning alone) stay valid in every provider format', async () => {
      const store = await stores.open();
      const session = chatstateSession({ store, sessionId: 'held' });
      const reasoning = { type: 'reasoning', content: [{ type: 'input_text', text: 'thinking' }] } as AgentInputItem;
      const answer = {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hi.' }],
      } as AgentInputItem;
      await session.addItems([user('hello')]);
      await session.addItems([reasoning]);
      await session.addItems([answer]);
      expect(await session.getItems()).toEqual([user('hello'), reasoning, answer]);
      const { messages } = await store.load('held');
      expect(messages[1]?.content).toEqual([{ type: 'raw', provider: 'openaiResponses', value: reasoning }]);
      for (const format of [
        formats.openaiChat,
        formats.openaiResponses,
        formats.anthropic,
        formats.gemini,
        formats.aiSdk,
      ])
        expect(format.validate(format.to(messages))).toEqual([]);
    });

    it('opens a session chatstate wrote itself: its messages read as valid items the runner sends', async () => {
      const store = await stores.open();
      const written = Session.create({ id: 'native' }).append(
        Message.system('Be brief.'),
        Message.context('Summary of earlier turns: the user lives in Oslo.'),
        Message.user('Weather?'),
        Message.assistant('', { toolCalls: [{ id: 'call_n', name: 'weather', arguments: { city: 'Oslo' } }] }),
        Message.tool('call_n', 'sunny', { name: 'weather' }),
        Message.assistant('Sunny.'),
      );
      await store.save(written, { expectedVersion: 0 });
      const session = chatstateSession({ store, sessionId: 'native' });
      const items = await session.getItems();
      expect(items.map((item) => protocol.ModelItem.safeParse(item).success)).toEqual([
        true,
        true,
        true,
        true,
        true,
        true,
      ]);
      expect(items[3]).toEqual({
        type: 'function_call',
        status: 'completed',
        callId: 'call_n',
        name: 'weather',
        arguments: '{"city":"Oslo"}',
      });
      expect(items[4]).toEqual({
        type: 'function_call_result',
        status: 'completed',
        name: 'weather',
        callId: 'call_n',
        output: 'sunny',
      });
      const { agent, model } = scriptedAgent([[assistantMessage('Still sunny.')]]);
      await run(agent, 'And now?', { session });
      expect((model.calls[0]?.request.input as AgentInputItem[]).slice(0, 6)).toEqual(items);
    });

    it('persists a blocked output through applyHistoryTransaction when the runner uses it', async () => {
      const store = await stores.open();
      const session = chatstateSession({ store, sessionId: 'guarded' });
      const { agent } = scriptedAgent([
        [functionCall('weather', { city: 'Oslo' }, { callId: 'call_g' })],
        [assistantMessage('SECRET forecast')],
      ]);
      const guarded = agent.clone({
        outputGuardrails: [
          {
            name: 'no-secrets',
            execute: async ({ agentOutput }) => ({
              tripwireTriggered: String(agentOutput).includes('SECRET'),
              outputInfo: {},
            }),
          },
        ],
      }) as Agent;
      await expect(run(guarded, 'Weather in Oslo?', { session })).rejects.toBeInstanceOf(
        OutputGuardrailTripwireTriggered,
      );
      // The executed tool call is kept (with its result), the blocked answer is not, and the
      // operation id was recorded in the same commit.
      const items = await session.getItems();
      expect(items.map((item) => item.type ?? 'message')).toEqual(['message', 'function_call', 'function_call_result']);
      const stored = await store.load('guarded');
      expect(stored.metadata['openaiAgentsOperations']).toEqual([
        { id: expect.stringContaining(':blocked_append:'), hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ]);
    });

    it('compacts with a chatstate compactor after a turn: whole tool exchanges, newest turn kept', async () => {
      const store = await stores.open();
      const reports: CompactionResult[] = [];
      const session = chatstateSession({
        store,
        sessionId: 'compacting',
        compaction: {
          strategy: compaction.slidingWindow({ turns: 1 }),
          trigger: triggers.messageCount(6),
          onCompaction: (result) => reports.push(result),
        },
      });
      const { agent } = scriptedAgent([
        [functionCall('weather', { city: 'Oslo' }, { callId: 'call_a' })],
        [assistantMessage('Sunny in Oslo.')],
        [functionCall('weather', { city: 'Rome' }, { callId: 'call_b' })],
        [assistantMessage('Sunny in Rome.')],
      ]);
      await run(agent, 'Oslo?', { session });
      expect(reports).toEqual([]);
      await run(agent, 'Rome?', { session });
      expect(reports).toHaveLength(1);
      const items = await session.getItems();
      expect(items).toEqual([
        { type: 'message', role: 'user', content: 'Rome?' },
        expect.objectContaining({ type: 'function_call', callId: 'call_b' }),
        expect.objectContaining({ type: 'function_call_result', callId: 'call_b' }),
        expect.objectContaining({ type: 'message', role: 'assistant' }),
      ]);
      expect((await store.load('compacting')).metadata['compactions']).toBeDefined();
      // `force` compacts below the trigger; nothing configured: nothing happens.
      expect(await session.runCompaction({ force: true })).toBeNull();
      expect(await chatstateSession({ store, sessionId: 'compacting' }).runCompaction({ force: true })).toBeNull();
    });

    it('a compactor that rewrites a tool output changes the item it gives back', async () => {
      const store = await stores.open();
      const session = chatstateSession({
        store,
        sessionId: 'truncating',
        compaction: { strategy: compaction.truncateToolOutputs({ maxTokens: 20, keepRecentTurns: 0 }) },
      });
      const long = 'x'.repeat(2000);
      await session.addItems([
        user('go'),
        { type: 'function_call', callId: 'call_t', name: 'dump', arguments: '{}', status: 'completed' },
        {
          type: 'function_call_result',
          callId: 'call_t',
          name: 'dump',
          status: 'completed',
          output: { type: 'text', text: long },
        },
      ]);
      await session.runCompaction({ force: true });
      const result = (await session.getItems())[2] as { output: unknown; callId: string };
      expect(result.callId).toBe('call_t');
      expect(JSON.stringify(result.output).length).toBeLessThan(500);
      expect(JSON.stringify(result.output)).toContain('truncated');
    });

    it('replaces the history with a compaction item and what follows it in one commit', async () => {
      const store = await stores.open();
      const session = chatstateSession({ store, sessionId: 'replaced' });
      await session.addItems([user('a'), user('b'), user('c')]);
      const replacement = [{ type: 'compaction', encrypted_content: 'opaque' } as unknown as AgentInputItem, user('c')];
      await session.replaceHistoryWithCompaction(replacement);
      expect(await session.getItems()).toEqual(replacement);
    });
  },
  'oasession',
);
