/**
 * Property tests of the chat store: any UI message list (every part kind and tool state, arbitrary
 * JSON metadata and ids) reloads exactly, as a provider-valid chatstate session, and any edit of a
 * stored chat (appends, changed messages, a removed tail) reloads as the edited list.
 */
import { convertToModelMessages, safeValidateUIMessages } from 'ai';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createChatStore } from '../../../src/adapters/ai-sdk/index.js';
import { formats } from '../../../src/formats/index.js';
import { memoryStore } from '../../../src/stores/memory.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { uiChat, uiMessage } from './ui-arbitraries.js';

function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** What a promise gives: its value, or its error's name and message. */
async function settle<T>(promise: Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

it('reloads any UI message list exactly, as a provider-valid session (memory store, many runs)', async () => {
  await fc.assert(
    fc.asyncProperty(uiChat, async (chat) => {
      const store = memoryStore();
      const chats = createChatStore({ store });
      await chats.commitChat({ id: 'chat', messages: chat });
      const loaded = await chats.loadChat('chat');
      expect(loaded).toStrictEqual(json(chat));
      // The AI SDK cannot tell a reloaded chat from the original: same validation, same prompt.
      const valid = await safeValidateUIMessages({ messages: json(chat) });
      expect((await safeValidateUIMessages({ messages: loaded })).success).toBe(valid.success);
      const converted = await settle(convertToModelMessages(json(chat)));
      expect(await settle(convertToModelMessages(loaded))).toStrictEqual(converted);
      // Saving the reloaded list again writes nothing.
      expect((await chats.commitChat({ id: 'chat', messages: await chats.loadChat('chat') })).kind).toBe('none');
      const session = await store.load('chat');
      for (const provider of ['aiSdk', 'openaiChat'] as const)
        expect(formats[provider].validate(formats[provider].to(session.messages) as never)).toEqual([]);
      await store.close();
    }),
    { numRuns: 200 },
  );
});

/** An edit of a chat: keep a prefix, change some kept messages' parts, append new messages. */
const edit = fc.record({
  keep: fc.nat(),
  changed: fc.array(fc.nat(), { maxLength: 2 }),
  parts: fc.array(uiMessage, { maxLength: 2 }),
  added: fc.array(uiMessage, { maxLength: 3 }),
});

await describeEveryStore(
  'ai-sdk chat store, property',
  (subject) => {
    const stores = storesOf(subject);
    it('reloads any chat and any edit of it exactly', async () => {
      const store = await stores.open();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(uiChat, edit, async (chat, change) => {
          run += 1;
          const id = `chat-${run}`;
          const chats = createChatStore({ store });
          await chats.commitChat({ id, messages: chat });
          const loaded = await chats.loadChat(id);
          expect(loaded).toStrictEqual(json(chat));
          const kept = loaded.slice(0, chat.length === 0 ? 0 : change.keep % (chat.length + 1));
          // Loaded messages are frozen: a change is a changed copy in the message's place.
          change.changed.forEach((index, at) => {
            const place = index % Math.max(kept.length, 1);
            const target = kept[place];
            const donor = change.parts[at];
            if (target !== undefined && donor !== undefined) kept[place] = { ...target, parts: donor.parts };
          });
          const ids = new Set(kept.map((message) => message.id));
          const next = [...kept, ...change.added.filter((message) => !ids.has(message.id) && ids.add(message.id))];
          await chats.commitChat({ id, messages: next });
          expect(await createChatStore({ store }).loadChat(id)).toStrictEqual(json(next));
        }),
        { numRuns: 12 },
      );
    });
  },
  'aisdkprop',
);
