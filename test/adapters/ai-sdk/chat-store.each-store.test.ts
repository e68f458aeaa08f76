/**
 * The AI SDK chat store over every store: exact reloads of every part kind and tool state, what
 * each save writes (append or atomic rewrite), regenerate, two writers, bad input, and chats the
 * store did not write.
 */
import { convertToModelMessages, validateUIMessages, type UIMessage } from 'ai';
import { expect, it } from 'vitest';
import { createChatStore, type ChatStore } from '../../../src/adapters/ai-sdk/index.js';
import { compaction } from '../../../src/compaction/index.js';
import { formats } from '../../../src/formats/index.js';
import { MAX_MESSAGE_CHARS, Message } from '../../../src/message/message.js';
import { Session } from '../../../src/session/session.js';
import type { ChangeKind } from '../../../src/store/change-types.js';
import type { SessionStore } from '../../../src/store/session-store-types.js';
import { memoryStore } from '../../../src/stores/memory.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { everyPartChat, interruptedChat } from './fixtures.js';
import { rejectionOf } from '../../support/errors.js';

/** `value` as JSON reads it (what crosses the network): `undefined` fields dropped. */
function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The kinds of this store's committed changes to `id`, as its change feed tells them. */
function watch(store: SessionStore, id: string): ChangeKind[] {
  const kinds: ChangeKind[] = [];
  store.changes?.subscribe((event) => {
    if (event.type === 'change' && event.id === id) kinds.push(event.kind);
  });
  return kinds;
}

function assistantWith(id: string, parts: UIMessage['parts']): UIMessage {
  return { id, role: 'assistant', parts };
}

await describeEveryStore(
  'ai-sdk chat store',
  (subject) => {
    const stores = storesOf(subject);

    it('reloads every part kind and tool state exactly, after a restart', async () => {
      const store = await stores.open();
      const chat = everyPartChat();
      await createChatStore({ store }).commitChat({ id: 'chat-1', messages: chat });
      const reopened = await stores.reopen(store);
      const loaded = await createChatStore({ store: reopened }).loadChat('chat-1');
      expect(loaded).toStrictEqual(json(chat));
      // Ids, roles and part order as they were.
      expect(loaded.map((message) => message.id)).toEqual(chat.map((message) => message.id));
      expect(loaded[2]?.parts.map((part) => part.type)).toEqual(chat[2]?.parts.map((part) => part.type));
    });

    it('stores a normal, provider-valid chatstate conversation: tool calls paired with their results', async () => {
      const store = await stores.open();
      await createChatStore({ store }).commitChat({ id: 'chat-1', messages: everyPartChat() });
      const session = await store.load('chat-1');
      const roles = session.messages.map((message) => message.role);
      expect(roles).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'tool',
        'tool',
        'tool',
        'assistant',
        'user',
        'assistant',
      ]);
      const calls = session.messages[2]?.toolCalls?.map((call) => [call.id, call.name, JSON.parse(call.arguments)]);
      expect(calls).toEqual([
        ['call-1', 'weather', { city: 'Paris', unit: 'celsius' }],
        ['call-2', 'weather', { city: 'Atlantis' }],
        ['call-3', 'search', { query: 'paris' }],
        ['call-4', 'delete', { path: '/' }],
      ]);
      expect(session.messages.slice(3, 7).map((message) => message.toolCallId)).toEqual([
        'call-1',
        'call-2',
        'call-3',
        'call-4',
      ]);
      // Calls still waiting for an outcome are not tool calls yet: nothing is left unanswered.
      expect(session.messages[9]?.toolCalls).toBeUndefined();
      for (const provider of ['aiSdk', 'openaiChat', 'anthropic'] as const) {
        const wire = formats[provider].to(session.messages);
        expect(formats[provider].validate(wire as never), provider).toEqual([]);
      }
      // What the AI SDK projection says matches the UI message's meaning.
      const prompt = formats.aiSdk.to(session.messages);
      expect(prompt.system).toBe('You are terse.');
      expect(prompt.messages[2]).toMatchObject({
        role: 'tool',
        content: [
          { toolCallId: 'call-1', output: { type: 'json', value: { temperature: 21, sky: 'clear' } } },
          { toolCallId: 'call-2', output: { type: 'error-text', value: 'Unknown city' } },
          { toolCallId: 'call-3', output: { type: 'text', value: 'plain text result' } },
          { toolCallId: 'call-4', output: { type: 'execution-denied', reason: 'too risky' } },
        ],
      });
      expect((await store.summary('chat-1'))?.title).toBe('What is the weather in Paris? See the file.');
    });

    it('gives validateUIMessages and convertToModelMessages every reloaded chat, interrupted mid-tool ones included', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      await chats.commitChat({ id: 'every', messages: everyPartChat() });
      await chats.commitChat({ id: 'cut', messages: interruptedChat() });
      const every = await chats.loadChat('every');
      const cut = await chats.loadChat('cut');
      expect(await validateUIMessages({ messages: every })).toStrictEqual(every);
      expect(await validateUIMessages({ messages: cut })).toStrictEqual(cut);
      // Reloaded, a chat converts exactly as the original did.
      expect(await convertToModelMessages(every)).toStrictEqual(await convertToModelMessages(everyPartChat()));
      // The interrupted call: the AI SDK sends the call without a result unless told to drop it.
      const model = await convertToModelMessages(cut);
      expect(model).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', toolCallId: 'call-oslo', toolName: 'weather', input: { city: 'Oslo' } },
          ],
        },
      ]);
      expect(await convertToModelMessages(cut, { ignoreIncompleteToolCalls: true })).toEqual([
        model[0],
        { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }] },
      ]);
      // The stored session has no dangling call: the tool call joins it when its output arrives.
      const session = await store.load('cut');
      expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(session.messages[1]?.toolCalls).toBeUndefined();
    });

    it('appends new messages and rewrites a message updated under its id, atomically', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      const kinds = watch(store, 'chat-1');
      const [user, assistant] = interruptedChat() as [UIMessage, UIMessage];
      expect(await chats.commitChat({ id: 'chat-1', messages: [user] })).toEqual({ kind: 'append', version: 1 });
      // The chat was created by a whole save; from here on, what each save writes is watched.
      kinds.splice(0);
      const first = (await store.load('chat-1')).messages[0];
      expect((await chats.commitChat({ id: 'chat-1', messages: [user, assistant] })).kind).toBe('append');
      // The same list again writes nothing.
      expect(await chats.commitChat({ id: 'chat-1', messages: [user, assistant] })).toEqual({
        kind: 'none',
        version: 2,
      });
      expect(kinds.filter((kind) => kind === 'replace')).toEqual([]);
      // The tool output arrives: the same assistant message id, changed content.
      const done = assistantWith('a1', [
        ...assistant.parts.slice(0, 2),
        {
          type: 'tool-weather',
          toolCallId: 'call-oslo',
          state: 'output-available',
          input: { city: 'Oslo' },
          output: { temperature: -3 },
        },
        { type: 'step-start' },
        { type: 'text', text: 'It is -3°C.', state: 'done' },
      ]);
      expect(await chats.commitChat({ id: 'chat-1', messages: [user, done] })).toEqual({ kind: 'rewrite', version: 3 });
      expect(kinds).toContain('replace');
      const session = await store.load('chat-1');
      expect(session.messages.map((message) => [message.id, message.role])).toEqual([
        ['u1', 'user'],
        ['a1', 'assistant'],
        ['a1:1', 'tool'],
        ['a1:2', 'assistant'],
      ]);
      // The untouched message was kept as it was stored (same timestamp and sequence number).
      expect(session.messages[0]?.timestamp).toBe(first?.timestamp);
      expect(session.messages[0]?.seq).toBe(first?.seq);
      expect(await chats.loadChat('chat-1')).toStrictEqual(json([user, done]));
    });

    it('handles a regenerate: the tail removed and replaced, based on the loaded version', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      const chat = everyPartChat();
      await chats.commitChat({ id: 'chat-1', messages: chat });
      const loaded = await chats.loadChat('chat-1');
      const regenerated = [
        ...loaded.slice(0, -1),
        assistantWith('assistant-2b', [{ type: 'text', text: 'Another answer.' }]),
      ];
      expect((await chats.commitChat({ id: 'chat-1', messages: regenerated })).kind).toBe('rewrite');
      expect(await chats.loadChat('chat-1')).toStrictEqual(json(regenerated));
      const ids = (await store.load('chat-1')).messages.map((message) => message.id);
      expect(ids).not.toContain('assistant-2');
      expect(ids.at(-1)).toBe('assistant-2b');
    });

    it('refuses to remove messages it did not load (CONFLICT), and accepts them with expectedVersion', async () => {
      const store = await stores.open();
      const [user, assistant] = interruptedChat() as [UIMessage, UIMessage];
      await createChatStore({ store }).commitChat({ id: 'chat-1', messages: [user] });
      await createChatStore({ store }).commitChat({ id: 'chat-1', messages: [user, assistant] });
      const fresh = createChatStore({ store });
      const error = await rejectionOf(fresh.commitChat({ id: 'chat-1', messages: [user] }));
      expect(error.code).toBe('CONFLICT');
      expect(error.details).toMatchObject({ removed: ['a1'] });
      expect(await fresh.loadChat('chat-1')).toStrictEqual(json([user, assistant]));
      const stored = await fresh.getChat('chat-1');
      // A stale version is a conflict; the current one is a rewrite.
      expect((await rejectionOf(fresh.commitChat({ id: 'chat-1', messages: [user], expectedVersion: 1 }))).code).toBe(
        'CONFLICT',
      );
      expect(await fresh.commitChat({ id: 'chat-1', messages: [user], expectedVersion: stored?.version })).toEqual({
        kind: 'rewrite',
        version: (stored?.version ?? 0) + 1,
      });
      expect(await fresh.loadChat('chat-1')).toStrictEqual(json([user]));
    });

    it('two writers on one chat: a retry or a typed CONFLICT, never a lost message', async () => {
      const store = await stores.open();
      const first = createChatStore({ store });
      const second = createChatStore({ store });
      const [user] = interruptedChat() as [UIMessage];
      await first.commitChat({ id: 'chat-1', messages: [user] });
      await first.loadChat('chat-1');
      await second.loadChat('chat-1');
      const fromFirst = assistantWith('from-first', [{ type: 'text', text: 'first' }]);
      const fromSecond = assistantWith('from-second', [{ type: 'text', text: 'second' }]);
      // Both based on the same version, at the same time: one appends, the other finds a message it
      // never saw where it would put its own, and is told so.
      const results = await Promise.allSettled([
        first.commitChat({ id: 'chat-1', messages: [user, fromFirst] }),
        second.commitChat({ id: 'chat-1', messages: [user, fromSecond] }),
      ]);
      const failed = results.filter((result) => result.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect((failed[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' });
      const winner = results[0]?.status === 'fulfilled' ? fromFirst : fromSecond;
      expect(await first.loadChat('chat-1')).toStrictEqual(json([user, winner]));

      // Appends of different messages at once are both kept (the loser retries on the winner's result).
      const one = { id: 'n1', role: 'user', parts: [{ type: 'text', text: 'one' }] } satisfies UIMessage;
      const two = { id: 'n2', role: 'user', parts: [{ type: 'text', text: 'two' }] } satisfies UIMessage;
      await Promise.all([first.appendMessages('chat-1', [one]), second.appendMessages('chat-1', [two])]);
      const ids = (await first.loadChat('chat-1')).map((message) => message.id);
      expect(ids.slice(0, 2)).toEqual(['u1', winner.id]);
      expect(ids.slice(2).sort()).toEqual(['n1', 'n2']);

      // Two creators of one new chat: the second plans again over the first's chat.
      const a = { id: 'x1', role: 'user', parts: [{ type: 'text', text: 'a' }] } satisfies UIMessage;
      const b = { id: 'x2', role: 'user', parts: [{ type: 'text', text: 'b' }] } satisfies UIMessage;
      const created = await Promise.allSettled([
        first.commitChat({ id: 'chat-2', messages: [a] }),
        second.commitChat({ id: 'chat-2', messages: [a, b] }),
      ]);
      const stored = await first.loadChat('chat-2');
      // Whatever the order: nothing acknowledged is missing.
      created.forEach((result, index) => {
        if (result.status === 'fulfilled')
          for (const message of index === 0 ? [a] : [a, b]) expect(stored.map((item) => item.id)).toContain(message.id);
        else expect(result.reason).toMatchObject({ code: 'CONFLICT' });
      });
    });

    it('appendMessages adds after the stored messages and replaces one with the same id', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      const [user, assistant] = interruptedChat() as [UIMessage, UIMessage];
      expect((await chats.appendMessages('chat-1', [user])).kind).toBe('append');
      expect((await chats.appendMessages('chat-1', [assistant])).kind).toBe('append');
      expect((await chats.appendMessages('chat-1', [assistant])).kind).toBe('none');
      const changed = assistantWith('a1', [{ type: 'text', text: 'Changed.' }]);
      expect((await chats.appendMessages('chat-1', [changed])).kind).toBe('rewrite');
      expect(await chats.loadChat('chat-1')).toStrictEqual(json([user, changed]));
    });

    it('creates and deletes chats; a missing chat loads as empty', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store, userId: 'user-7' });
      expect(await chats.loadChat('nothing-here')).toEqual([]);
      expect(await chats.getChat('nothing-here')).toBeUndefined();
      const id = await chats.createChat();
      expect(await chats.getChat(id)).toEqual({ id, messages: [], version: 1 });
      expect((await store.summary(id))?.userId).toBe('user-7');
      expect((await rejectionOf(chats.createChat(id))).code).toBe('CONFLICT');
      // saveChat resolves to nothing (it fits `onFinish` as it is); commitChat tells what it wrote.
      expect(await chats.saveChat({ id, messages: interruptedChat() })).toBeUndefined();
      expect(await chats.loadChat(id)).toHaveLength(2);
      expect(await chats.deleteChat(id)).toBe(true);
      expect(await chats.deleteChat(id)).toBe(false);
      expect(await chats.loadChat(id)).toEqual([]);
    });

    it('refuses bad input with typed errors and stores nothing of it', async () => {
      const store = await stores.open();
      const chats: ChatStore = createChatStore({ store });
      const good = interruptedChat();
      await chats.commitChat({ id: 'chat-1', messages: good });
      const cases: Array<[string, unknown, string]> = [
        ['not an array', { id: 'chat-1', messages: 'nope' }, 'INVALID_ARGUMENT'],
        ['a message without parts', { id: 'chat-1', messages: [{ id: 'm', role: 'user' }] }, 'INVALID_MESSAGE'],
        ['an unknown role', { id: 'chat-1', messages: [{ id: 'm', role: 'tool', parts: [] }] }, 'INVALID_MESSAGE'],
        ['an empty id', { id: 'chat-1', messages: [{ id: '', role: 'user', parts: [] }] }, 'INVALID_MESSAGE'],
        [
          'a part without a type',
          { id: 'chat-1', messages: [{ id: 'm', role: 'user', parts: [{}] }] },
          'INVALID_MESSAGE',
        ],
        ['a repeated id', { id: 'chat-1', messages: [good[0], good[0]] }, 'INVALID_ARGUMENT'],
        ['a bad chat id', { id: '../etc', messages: good }, 'INVALID_ID'],
        [
          'metadata too deep',
          { id: 'chat-1', messages: [{ id: 'm', role: 'user', parts: [], metadata: deep(200) }] },
          'INVALID_ARGUMENT',
        ],
        ['not an object', null, 'INVALID_ARGUMENT'],
        ['a negative expectedVersion', { id: 'chat-1', messages: good, expectedVersion: -1 }, 'INVALID_ARGUMENT'],
        ['a chat id that is not a string', { id: 7, messages: good }, 'INVALID_ID'],
      ];
      for (const [label, input, code] of cases) {
        const error = await rejectionOf(chats.commitChat(input as never));
        expect(error.code, label).toBe(code);
      }
      expect((await rejectionOf(chats.appendMessages('chat-1', 'x' as never))).code).toBe('INVALID_ARGUMENT');
      expect(() => createChatStore({ store, retries: -1 })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
      expect(await chats.loadChat('chat-1')).toStrictEqual(json(good));
    });

    it('loads a chat chatstate compacted: untouched messages exactly, a truncated tool output in its part', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      const chat: UIMessage[] = [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Read the log' }] },
        assistantWith('a1', [
          { type: 'step-start' },
          {
            type: 'tool-read',
            toolCallId: 'call-log',
            state: 'output-available',
            input: { file: 'app.log' },
            output: 'line '.repeat(400),
          },
          { type: 'step-start' },
          { type: 'text', text: 'The log repeats one line.' },
        ]),
        { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
        assistantWith('a2', [{ type: 'text', text: 'You are welcome.' }]),
      ];
      await chats.commitChat({ id: 'chat-1', messages: chat });
      const truncated = await (
        await store.load('chat-1')
      ).compact(compaction.truncateToolOutputs({ maxTokens: 20, keepRecentTurns: 1 }));
      expect(truncated.result?.modified.count).toBe(1);
      await store.save(truncated.session);
      const loaded = await chats.loadChat('chat-1');
      expect(loaded[0]).toStrictEqual(json(chat[0]));
      expect(loaded.slice(-2)).toStrictEqual(json(chat.slice(-2)));
      // The truncated output is read where it was: the same tool part, its output now shortened.
      const read = loaded[1]?.parts[1];
      expect(loaded[1]?.id).toBe('a1');
      expect(read).toMatchObject({ type: 'tool-read', toolCallId: 'call-log', state: 'output-available' });
      expect(JSON.stringify(read)).toContain('tokens truncated');
      await validateUIMessages({ messages: loaded });
      await convertToModelMessages(loaded);

      // A group another writer cut (its last step removed) is read as plain chatstate messages.
      const stored = await store.load('chat-1');
      await store.save(stored.withMessages(stored.messages.filter((message) => message.id !== 'a1:2')));
      const cut = await chats.loadChat('chat-1');
      expect(cut.map((message) => message.id)).toEqual(['u1', 'a1', 'u2', 'a2']);
      expect(cut[1]?.parts).toEqual([
        expect.objectContaining({
          type: 'dynamic-tool',
          toolName: 'read',
          toolCallId: 'call-log',
          input: { file: 'app.log' },
          state: 'output-available',
        }),
      ]);
      await validateUIMessages({ messages: cut });

      const window = await (await store.load('chat-1')).compact(compaction.slidingWindow({ turns: 1 }));
      await store.save(window.session);
      expect(await chats.loadChat('chat-1')).toStrictEqual(json(chat.slice(-2)));
    });

    it('loads a chat chatstate wrote itself (no UI layout) as the nearest UI messages', async () => {
      const store = await stores.open();
      await store.save(
        Session.create({
          id: 'plain',
          messages: [
            Message.system('Be brief.'),
            Message.user('Weather?', { id: 'm1' }),
            Message.assistant('', {
              id: 'm2',
              toolCalls: [
                { id: 'c1', name: 'weather', arguments: { city: 'Oslo' } },
                { id: 'c2', name: 'weather', arguments: { city: 'Bergen' } },
              ],
            }),
            Message.tool('c1', '{"temperature":-3}', { id: 'm3' }),
            Message.assistant(
              [
                { type: 'reasoning', text: 'hm' },
                { type: 'text', text: 'Cold.' },
              ],
              { id: 'm4' },
            ),
          ],
        }),
      );
      const chats = createChatStore({ store });
      const loaded = await chats.loadChat('plain');
      expect(loaded.slice(1)).toEqual([
        { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
        {
          id: 'm2',
          role: 'assistant',
          parts: [
            {
              type: 'dynamic-tool',
              toolName: 'weather',
              toolCallId: 'c1',
              input: { city: 'Oslo' },
              state: 'output-available',
              output: { temperature: -3 },
            },
            {
              type: 'dynamic-tool',
              toolName: 'weather',
              toolCallId: 'c2',
              input: { city: 'Bergen' },
              state: 'input-available',
            },
          ],
        },
        {
          id: 'm4',
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'hm' },
            { type: 'text', text: 'Cold.' },
          ],
        },
      ]);
      await validateUIMessages({ messages: loaded });
      // Saved back unchanged, nothing is rewritten; a new message is appended after them.
      const next = { id: 'm5', role: 'user', parts: [{ type: 'text', text: 'Thanks' }] } satisfies UIMessage;
      expect((await chats.commitChat({ id: 'plain', messages: [...loaded, next] })).kind).toBe('append');
      expect((await store.load('plain')).messages.map((message) => message.id).slice(1)).toEqual([
        'm1',
        'm2',
        'm3',
        'm4',
        'm5',
      ]);
    });
  },
  'aisdkchat',
);

/** An object nested `depth` levels. */
function deep(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let index = 0; index < depth; index += 1) value = { value };
  return value;
}

it('refuses a message over the size limit with TOO_LARGE before anything is written', async () => {
  const store = memoryStore();
  const chats = createChatStore({ store });
  const [user] = interruptedChat() as [UIMessage];
  await chats.saveChat({ id: 'chat-1', messages: [user] });
  const huge: UIMessage = {
    id: 'big',
    role: 'user',
    parts: [{ type: 'file', mediaType: 'text/plain', url: `data:text/plain;base64,${'A'.repeat(MAX_MESSAGE_CHARS)}` }],
  };
  expect((await rejectionOf(chats.saveChat({ id: 'chat-1', messages: [user, huge] }))).code).toBe('TOO_LARGE');
  expect(await chats.getChat('chat-1')).toEqual({ id: 'chat-1', messages: json([user]), version: 1 });
  await store.close();
});
