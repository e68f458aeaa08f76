/**
 * `ChatstateSaver` beyond LangGraph's kit, on every store: a thread is a chatstate conversation,
 * a put appends only the messages its parent did not have (also when the reducer replaced or
 * removed one, or the thread forked from an older checkpoint), a restart reads everything back,
 * two savers writing one thread lose nothing, and bad input is a typed error.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { ERROR, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { expect, it } from 'vitest';
import { ChatstateSaver } from '../../../src/adapters/langgraph/index.js';
import { ChatstateError } from '../../../src/errors.js';
import { writesOwnerId } from '../../../src/adapters/langgraph/records.js';
import { isValidId } from '../../../src/ids.js';
import { openStore } from '../../../src/stores/open-store.js';
import { Session } from '../../../src/session/session.js';
import type { SessionStore, ValueStore } from '../../../src/store/session-store-types.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { wrappedStore } from '../../support/wrapped-store.js';

const THREAD = 'thread-1';

function checkpointOf(
  messages: readonly BaseMessage[],
  version: number,
  extra: Record<string, unknown> = {},
): Checkpoint {
  return {
    v: 4,
    id: uuid6(-1),
    ts: new Date().toISOString(),
    channel_values: { messages: [...messages], ...extra },
    channel_versions: { messages: version, ...Object.fromEntries(Object.keys(extra).map((key) => [key, version])) },
    versions_seen: { agent: { messages: version - 1 } },
  };
}

/** Puts `messages` as a child of `parent` (newVersions: every channel given). */
async function put(
  saver: ChatstateSaver,
  parent: string | undefined,
  messages: readonly BaseMessage[],
  version: number,
  extra: Record<string, unknown> = {},
  thread = THREAD,
): Promise<string> {
  const checkpoint = checkpointOf(messages, version, extra);
  const config: RunnableConfig = {
    configurable: { thread_id: thread, checkpoint_ns: '', ...(parent === undefined ? {} : { checkpoint_id: parent }) },
  };
  const newVersions = checkpoint.channel_versions;
  await saver.put(config, checkpoint, { source: 'loop', step: version, parents: {} }, newVersions);
  return checkpoint.id;
}

async function messagesAt(saver: ChatstateSaver, id: string, thread = THREAD): Promise<unknown> {
  const tuple = await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: id } });
  return tuple?.checkpoint.channel_values['messages'];
}

/** `store` counting the messages appended to each session. */
function counting(store: SessionStore): { store: SessionStore; appended: Map<string, number> } {
  const appended = new Map<string, number>();
  return {
    appended,
    store: wrappedStore(store, {
      append: async (id, messages, options) => {
        const result = await store.append(id, messages, options);
        appended.set(id, (appended.get(id) ?? 0) + result.appended.length);
        return result;
      },
    }),
  };
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ChatstateError.isInstance(error), String(error)).toBe(true);
  expect((error as ChatstateError).code).toBe(code);
}

await describeEveryStore(
  'langgraph saver',
  (subject) => {
    const stores = storesOf(subject);

    it('keeps a thread as a chatstate conversation and appends only new messages', async () => {
      const { store, appended } = counting(await stores.open());
      const saver = new ChatstateSaver(store);
      const conversation = saver.sessionsOf(THREAD).conversation;
      const hello = new HumanMessage({ content: 'hello', id: 'm1' });
      const call = new AIMessage({ content: '', id: 'm2', tool_calls: [{ id: 'c1', name: 'clock', args: {} }] });
      const result = new ToolMessage({ content: '12:00', tool_call_id: 'c1', id: 'm3' });
      const answer = new AIMessage({ content: 'It is noon.', id: 'm4' });
      let parent = await put(saver, undefined, [hello], 1, { step: 'a' });
      parent = await put(saver, parent, [hello, call], 2);
      parent = await put(saver, parent, [hello, call, result], 3);
      parent = await put(saver, parent, [hello, call, result, answer], 4);
      expect(appended.get(conversation)).toBe(4);
      expect(await messagesAt(saver, parent)).toEqual([hello, call, result, answer]);
      const session = await store.load(conversation);
      expect(session.messages.map((message) => [message.role, message.content])).toEqual([
        ['user', 'hello'],
        ['assistant', ''],
        ['tool', '12:00'],
        ['assistant', 'It is noon.'],
      ]);
      expect(session.metadata['langgraph']).toEqual({ threadId: THREAD, checkpointNs: '' });
      expect((await store.summary(conversation))?.title).toBe('hello');
      // The non-message channel was written once, then inherited.
      const latest = await saver.getTuple({ configurable: { thread_id: THREAD } });
      expect(latest?.checkpoint.channel_values).toEqual({ messages: [hello, call, result, answer] });
      const first = await saver.getTuple({
        configurable: {
          thread_id: THREAD,
          checkpoint_ns: '',
          checkpoint_id: latest?.parentConfig?.configurable?.['checkpoint_id'] as string,
        },
      });
      expect(first?.checkpoint.channel_values['messages']).toEqual([hello, call, result]);
    });

    it('stores a replaced message anew, follows removals and forks, and falls back to a fresh copy', async () => {
      const { store, appended } = counting(await stores.open());
      const saver = new ChatstateSaver(store, { maxRanges: 3 });
      const conversation = saver.sessionsOf(THREAD).conversation;
      const m = (n: number, text = `message ${n}`): HumanMessage => new HumanMessage({ content: text, id: `m${n}` });
      const c1 = await put(saver, undefined, [m(1), m(2), m(3)], 1);
      // The reducer replaced m2 by id: same LangChain id, new content.
      const c2 = await put(saver, c1, [m(1), m(2, 'edited'), m(3)], 2);
      expect(appended.get(conversation)).toBe(4);
      // It removed m1.
      const c3 = await put(saver, c2, [m(2, 'edited'), m(3), m(4)], 3);
      expect(appended.get(conversation)).toBe(5);
      // Time travel: a fork from c1 with other messages.
      const fork = await put(saver, c1, [m(1), m(2), m(3), m(5)], 2);
      expect(appended.get(conversation)).toBe(6);
      expect(await messagesAt(saver, c1)).toEqual([m(1), m(2), m(3)]);
      expect(await messagesAt(saver, c2)).toEqual([m(1), m(2, 'edited'), m(3)]);
      expect(await messagesAt(saver, c3)).toEqual([m(2, 'edited'), m(3), m(4)]);
      expect(await messagesAt(saver, fork)).toEqual([m(1), m(2), m(3), m(5)]);
      // Against the fork, three messages are new (m2 edited, m4, m6): four ranges, over maxRanges,
      // so the whole list is appended once as a fresh copy (the new ones among it) instead.
      const scattered = [m(1), m(2, 'edited'), m(4), m(5), m(6)];
      const c4 = await put(saver, fork, scattered, 3);
      expect(appended.get(conversation)).toBe(6 + scattered.length);
      expect(await messagesAt(saver, c4)).toEqual(scattered);
      // A fresh saver (nothing cached) reads the same.
      const cold = new ChatstateSaver(store, { maxRanges: 3 });
      for (const [id, expected] of [
        [c2, [m(1), m(2, 'edited'), m(3)]],
        [fork, [m(1), m(2), m(3), m(5)]],
        [c4, scattered],
      ] as const)
        expect(await messagesAt(cold, id)).toEqual(expected);
    });

    it('reads everything back after a restart and goes on appending only what is new', async () => {
      const first = await stores.open();
      const saver = new ChatstateSaver(first);
      const history = [new HumanMessage({ content: 'one', id: 'a' }), new AIMessage({ content: 'two', id: 'b' })];
      const parent = await put(saver, undefined, history, 1, { counter: 7 });
      await saver.putWrites(
        { configurable: { thread_id: THREAD, checkpoint_ns: '', checkpoint_id: parent } },
        [['messages', [new HumanMessage('pending')]]],
        'task-1',
      );
      const { store, appended } = counting(await stores.reopen(first));
      const again = new ChatstateSaver(store);
      const tuple = await again.getTuple({ configurable: { thread_id: THREAD } });
      expect(tuple?.checkpoint.channel_values).toEqual({ messages: history, counter: 7 });
      expect(tuple?.pendingWrites).toEqual([['task-1', 'messages', [new HumanMessage('pending')]]]);
      const next = [
        ...(tuple?.checkpoint.channel_values['messages'] as BaseMessage[]),
        new HumanMessage({ content: 'three', id: 'c' }),
      ];
      const child = await put(again, parent, next, 2);
      expect(appended.get(again.sessionsOf(THREAD).conversation)).toBe(1);
      expect(await messagesAt(again, child)).toEqual(next);
    });

    it('reads the latest checkpoint and a limited list without reading the whole thread, and writes a flat amount per put', async () => {
      const store = await stores.open();
      const history: BaseMessage[] = [];
      const written: number[] = [];
      const measuring = wrappedStore(store, {
        append: async (id, messages, options) => {
          written.push(JSON.stringify(messages).length);
          return store.append(id, messages, options);
        },
      });
      const writer = new ChatstateSaver(measuring);
      let parent: string | undefined;
      const steps = 300;
      for (let step = 1; step <= steps; step++) {
        history.push(
          step % 2 === 1
            ? new HumanMessage({ content: `q${step}`, id: `q${step}` })
            : new AIMessage({ content: `a${step}`, id: `a${step}` }),
        );
        const extra: Record<string, unknown> = { counter: step };
        if (step % 50 === 0) extra['document'] = 'x'.repeat(5_000) + String(step);
        parent = await put(writer, parent, history, step, extra);
      }
      // Each put wrote one message with its record: the same size at the end as at the start.
      expect(written).toHaveLength(steps);
      expect(Math.max(...written.slice(-10))).toBeLessThan(Math.min(...written.slice(0, 10)) + 200);
      // A cold saver reads the newest checkpoint from the ends of its sessions, not the whole thread.
      let read = 0;
      let valueReads = 0;
      const counted = wrappedStore(store, {
        readMessages: async (id, range) => {
          const messages = await store.readMessages(id, range);
          read += messages.length;
          return messages;
        },
        values: {
          get: (owner, key) => ((valueReads += 1), store.values.get(owner, key)),
          getAll: (owner) => store.values.getAll(owner),
          set: (owner, entries) => store.values.set(owner, entries),
        },
      });
      const cold = new ChatstateSaver(counted);
      const latest = await cold.getTuple({ configurable: { thread_id: THREAD } });
      expect(latest?.checkpoint.id).toBe(parent);
      expect(latest?.checkpoint.channel_values['counter']).toBe(steps);
      expect(String(latest?.checkpoint.channel_values['document']).endsWith('300')).toBe(true);
      expect(latest?.checkpoint.channel_values['messages']).toEqual(history);
      // The log page, the conversation page, and the checkpoint's own messages.
      expect(read).toBeLessThanOrEqual(64 * 2 + steps);
      expect(valueReads).toBeLessThanOrEqual(3);
      read = 0;
      const listed: string[] = [];
      for await (const tuple of new ChatstateSaver(counted).list({ configurable: { thread_id: THREAD } }, { limit: 3 }))
        listed.push(tuple.checkpoint.id);
      expect(listed).toHaveLength(3);
      expect(listed[0]).toBe(parent);
      expect(read).toBeLessThanOrEqual(64 * 2 + 3 * steps);
    });

    it('stores a channel value larger than one session value in parts', async () => {
      const store = await stores.open();
      const saver = new ChatstateSaver(store);
      const document = 'é'.repeat(700_000) + 'end';
      const id = await put(saver, undefined, [new HumanMessage({ content: 'read this', id: 'r' })], 1, { document });
      const cold = new ChatstateSaver(store);
      const tuple = await cold.getTuple({ configurable: { thread_id: THREAD, checkpoint_ns: '', checkpoint_id: id } });
      expect(tuple?.checkpoint.channel_values['document']).toBe(document);
    });

    it('keeps pending writes in order, each (task, index) once, special channels replaced, parallel tasks all kept', async () => {
      const store = await stores.open();
      const saver = new ChatstateSaver(store);
      const id = await put(saver, undefined, [new HumanMessage({ content: 'go', id: 'g' })], 1);
      const config = { configurable: { thread_id: THREAD, checkpoint_ns: '', checkpoint_id: id } };
      await saver.putWrites(
        config,
        [
          ['value', 'first'],
          ['other', 1],
        ],
        'task-b',
        'path-b',
      );
      await saver.putWrites(config, [['value', 'second']], 'task-b', 'path-b');
      await saver.putWrites(config, [[ERROR, 'boom 1']], 'task-a', 'path-a');
      await saver.putWrites(config, [[ERROR, 'boom 2']], 'task-a', 'path-a');
      await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          saver.putWrites(config, [['fan', index]], `task-fan-${String(index).padStart(2, '0')}`, 'path-c'),
        ),
      );
      const tuple = await new ChatstateSaver(store).getTuple(config);
      expect(tuple?.pendingWrites).toEqual([
        ['task-a', ERROR, 'boom 2'],
        ['task-b', 'value', 'first'],
        ['task-b', 'other', 1],
        ...Array.from({ length: 12 }, (_, index) => [`task-fan-${String(index).padStart(2, '0')}`, 'fan', index]),
      ]);
    });

    it('loses no pending write when two savers over two stores put writes of different tasks at once', async () => {
      const store = await stores.open();
      const url = subject.url(store);
      // Two stores over the same data, as two workers have (the memory store: a second one over its driver).
      const other = url === undefined ? await stores.reopen(store) : await openStore(url);
      try {
        // Each value read takes a little longer, as on a busy server: the other worker gets in between.
        const slow = (inner: SessionStore): SessionStore => {
          const values: ValueStore = {
            get: async (owner, key) => {
              const value = await inner.values.get(owner, key);
              await new Promise((resolve) => setTimeout(resolve, 2));
              return value;
            },
            getAll: (owner) => inner.values.getAll(owner),
            set: (owner, entries) => inner.values.set(owner, entries),
          };
          return wrappedStore(inner, { values });
        };
        const savers = [new ChatstateSaver(slow(store)), new ChatstateSaver(slow(other))] as const;
        const id = await put(savers[0], undefined, [new HumanMessage({ content: 'go', id: 'g' })], 1);
        const config = { configurable: { thread_id: THREAD, checkpoint_ns: '', checkpoint_id: id } };
        const tasks = Array.from({ length: 20 }, (_, index) => `task-${String(index).padStart(2, '0')}`);
        await Promise.all(
          tasks.map((task, index) =>
            savers[index % 2]?.putWrites(
              config,
              [
                ['value', `${task} a`],
                ['other', index],
              ],
              task,
              `path-${task}`,
            ),
          ),
        );
        const expected = tasks
          .map((task, index) => [
            [task, 'value', `${task} a`],
            [task, 'other', index],
          ])
          .flat();
        for (const saver of [...savers, new ChatstateSaver(other)])
          expect((await saver.getTuple(config))?.pendingWrites).toEqual(expected);
        // Deleting the thread removes the writes too (they live beside the log, one owner per checkpoint).
        const owner = {
          scope: 'session',
          sessionId: writesOwnerId('lg', savers[0].sessionsOf(THREAD).log, id),
        } as const;
        expect(Object.keys(await store.values.getAll(owner))).toHaveLength(20);
        await savers[1].deleteThread(THREAD);
        expect(await store.values.getAll(owner)).toEqual({});
        expect(await new ChatstateSaver(store).getTuple(config)).toBeUndefined();
      } finally {
        if (url !== undefined) await other.close();
      }
    });

    it('loses no checkpoint when two savers put on one thread at once', async () => {
      const store = await stores.open();
      const one = new ChatstateSaver(store);
      const two = new ChatstateSaver(store);
      const base = [new HumanMessage({ content: 'start', id: 's' })];
      const root = await put(one, undefined, base, 1);
      const ids: string[] = [root];
      for (let round = 0; round < 5; round++) {
        const made = await Promise.all(
          [one, two].map((saver, index) =>
            put(saver, root, [...base, new AIMessage({ content: `r${round} s${index}`, id: `r${round}-${index}` })], 2),
          ),
        );
        ids.push(...made);
      }
      const listed: string[] = [];
      for await (const tuple of one.list({ configurable: { thread_id: THREAD } })) listed.push(tuple.checkpoint.id);
      expect(listed.sort()).toEqual([...ids].sort());
      for (let round = 0; round < 5; round++)
        for (const index of [0, 1])
          expect(await messagesAt(two, ids[1 + round * 2 + index] as string)).toEqual([
            ...base,
            new AIMessage({ content: `r${round} s${index}`, id: `r${round}-${index}` }),
          ]);
    });

    it('maps any thread id and namespace to distinct valid sessions', async () => {
      const store = await stores.open();
      const saver = new ChatstateSaver(store);
      const threads = ['a/b', 'a_b', '..', '__proto__', 'ünïcødé 🙂', 'x'.repeat(500), 'x'.repeat(501), 'thread-1'];
      const seen = new Set<string>();
      for (const thread of threads) {
        for (const namespace of ['', 'child:1', 'child']) {
          const ids = saver.sessionsOf(thread, namespace);
          expect(isValidId(ids.conversation) && isValidId(ids.log)).toBe(true);
          seen.add(ids.conversation).add(ids.log);
        }
        await put(saver, undefined, [new HumanMessage({ content: thread.slice(0, 20), id: 'q' })], 1, {}, thread);
      }
      expect(seen.size).toBe(threads.length * 6);
      for (const thread of threads) {
        const tuple = await saver.getTuple({ configurable: { thread_id: thread } });
        expect((tuple?.checkpoint.channel_values['messages'] as BaseMessage[])[0]?.content).toBe(thread.slice(0, 20));
      }
      await saver.deleteThread('a_b');
      expect(await saver.getTuple({ configurable: { thread_id: 'a_b' } })).toBeUndefined();
      expect(await saver.getTuple({ configurable: { thread_id: 'a/b' } })).toBeDefined();
    });

    it("keeps a thread's checkpoint log and subgraph sessions out of list, its conversation in it", async () => {
      const store = await stores.open();
      const saver = new ChatstateSaver(store);
      await put(saver, undefined, [new HumanMessage({ content: 'hello', id: 'q' })], 1, {}, 'kinds');
      const sub = checkpointOf([new HumanMessage({ content: 'inside', id: 's' })], 1, {});
      await saver.put(
        { configurable: { thread_id: 'kinds', checkpoint_ns: 'child' } },
        sub,
        { source: 'loop', step: 1, parents: {} },
        sub.channel_versions,
      );
      const main = saver.sessionsOf('kinds', '');
      const child = saver.sessionsOf('kinds', 'child');
      const prefix = main.conversation;
      expect((await store.list({ idPrefix: prefix })).map((row) => row.id)).toEqual([main.conversation]);
      const all = await store.list({ idPrefix: prefix, kinds: 'all' });
      expect(new Map(all.map((row) => [row.id, row.kind]))).toEqual(
        new Map([
          [main.conversation, undefined],
          [main.log, 'langgraph-checkpoints'],
          [child.conversation, 'langgraph-subgraph'],
          [child.log, 'langgraph-checkpoints'],
        ]),
      );
      // The saver's own listings still find every namespace, and deleteThread removes them all.
      const listed: string[] = [];
      for await (const tuple of saver.list({ configurable: { thread_id: 'kinds' } })) listed.push(tuple.checkpoint.id);
      expect(listed).toHaveLength(2);
      await saver.deleteThread('kinds');
      expect(await store.list({ idPrefix: prefix, kinds: 'all' })).toEqual([]);
    });

    it('answers bad input with typed errors and loses nothing', async () => {
      const store = await stores.open();
      const saver = new ChatstateSaver(store);
      const checkpoint = checkpointOf([new HumanMessage('x')], 1);
      const metadata = { source: 'input' as const, step: -1, parents: {} };
      await expectCode(saver.put({}, checkpoint, metadata, {}), 'INVALID_ARGUMENT');
      await expectCode(saver.put({ configurable: { thread_id: 42 } }, checkpoint, metadata, {}), 'INVALID_ARGUMENT');
      await expectCode(saver.put({ configurable: { thread_id: '' } }, checkpoint, metadata, {}), 'INVALID_ARGUMENT');
      await expectCode(
        saver.put({ configurable: { thread_id: THREAD, checkpoint_ns: 5 } }, checkpoint, metadata, {}),
        'INVALID_ARGUMENT',
      );
      await expectCode(
        saver.putWrites({ configurable: { thread_id: THREAD } }, [['a', 1]], 'task'),
        'INVALID_ARGUMENT',
      );
      await expectCode(saver.deleteThread(undefined as unknown as string), 'INVALID_ARGUMENT');
      await expectCode(
        saver.putWrites({ configurable: { thread_id: THREAD, checkpoint_id: 'x' } }, 'no' as unknown as [], 'task'),
        'INVALID_ARGUMENT',
      );
      await expectCode(
        saver.putWrites(
          { configurable: { thread_id: THREAD, checkpoint_id: 'x' } },
          [[7, 'v'] as unknown as [string, unknown]],
          'task',
        ),
        'INVALID_ARGUMENT',
      );
      expect(() => new ChatstateSaver(store, { sessionPrefix: 'no/slash' })).toThrow(/sessionPrefix/);
      expect(() => new ChatstateSaver(store, { maxRanges: 0 })).toThrow(/maxRanges/);
      const good = await put(saver, undefined, [new HumanMessage({ content: 'kept', id: 'k' })], 1);
      // Damaged pending writes are CORRUPT, never a wrong checkpoint.
      const sessions = saver.sessionsOf(THREAD);
      const damaged = await put(saver, good, [new HumanMessage({ content: 'kept', id: 'k' })], 2);
      const writesOwner = { scope: 'session', sessionId: writesOwnerId('lg', sessions.log, damaged) } as const;
      await store.values.set(writesOwner, { 'w/=task': { broken: true } });
      await expectCode(
        new ChatstateSaver(store).getTuple({
          configurable: { thread_id: THREAD, checkpoint_ns: '', checkpoint_id: damaged },
        }),
        'CORRUPT',
      );
      // Messages cut out of the conversation behind the saver's back: CORRUPT, with what is gone.
      // (A checkpoint that adds no message is recorded in the log and refers to the conversation's.)
      const logged = await put(saver, damaged, [new HumanMessage({ content: 'kept', id: 'k' })], 3);
      await store.delete(sessions.conversation);
      await store.save(Session.create({ id: sessions.conversation }));
      await expectCode(
        new ChatstateSaver(store).getTuple({
          configurable: { thread_id: THREAD, checkpoint_ns: '', checkpoint_id: logged },
        }),
        'CORRUPT',
      );
      // The checkpoints that added no message are still in the log.
      expect(await store.readMessages(sessions.log)).toHaveLength(2);
    });
  },
  'langgraph',
);
