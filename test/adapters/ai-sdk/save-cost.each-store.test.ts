/**
 * A save that costs what it changes, without missing a change: the chat store hands out deep-frozen
 * messages and recognises them when they come back, reads a list from JSON without copying the
 * messages it already has, and still saves (or refuses with a typed error) a change anywhere — in
 * the middle, a removed message, a changed copy, an id used twice, a value that is not plain data.
 */
import type { UIMessage } from 'ai';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createChatStore } from '../../../src/adapters/ai-sdk/index.js';
import type { SessionStore } from '../../../src/store/session-store-types.js';
import { memoryStore } from '../../../src/stores/memory.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { everyPartChat } from './fixtures.js';
import { uiMessage } from './ui-arbitraries.js';
import { rejectionOf } from '../../support/errors.js';

/** `value` as JSON reads it (what crosses the network). */
function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function text(id: string, role: UIMessage['role'], words: string): UIMessage {
  return { id, role, parts: [{ type: 'text', text: words }] };
}

/** A chat of `count` text messages, user and assistant in turn, after `everyPartChat`. */
function longChat(count: number): UIMessage[] {
  const turns = Array.from({ length: count }, (_, index) =>
    text(`m-${index}`, index % 2 === 0 ? 'user' : 'assistant', `message ${index}`),
  );
  return [...everyPartChat(), ...turns];
}

/** True when `value` and everything below it is frozen. */
function deepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every((item) => deepFrozen(item));
}

/** What a fresh chat store over `store` loads: the stored chat, with no cache in between. */
async function stored(store: SessionStore, id: string): Promise<UIMessage[]> {
  return createChatStore({ store }).loadChat(id);
}

/** The chat's version as stored. */
async function versionOf(store: SessionStore, id: string): Promise<number | undefined> {
  return (await store.summary(id))?.version;
}

await describeEveryStore(
  'ai-sdk chat store, save cost',
  (subject) => {
    const stores = storesOf(subject);

    it('hands out deep-frozen messages, the same objects on every load, in a new array each time', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      const chat = longChat(6);
      await chats.commitChat({ id: 'chat-1', messages: chat });
      const first = await chats.loadChat('chat-1');
      const second = await chats.loadChat('chat-1');
      expect(first).not.toBe(second);
      expect(first.every((message, index) => message === second[index])).toBe(true);
      expect(first.every((message) => deepFrozen(message))).toBe(true);
      // An edit in place throws (strict mode) instead of being lost; the array is the caller's.
      const target = first[1] as UIMessage & { parts: Array<{ type: string; text?: string }> };
      expect(() => {
        target.parts.push({ type: 'text', text: 'more' });
      }).toThrow(TypeError);
      expect(() => {
        (target as { role: string }).role = 'assistant';
      }).toThrow(TypeError);
      first.push(text('m-new', 'user', 'added to the loaded array'));
      expect(await stored(store, 'chat-1')).toStrictEqual(json(chat));
      // The array pushed to saves as an append.
      expect((await chats.commitChat({ id: 'chat-1', messages: first })).kind).toBe('append');
      expect(await stored(store, 'chat-1')).toStrictEqual(json(first));
    });

    it('saves a change anywhere in a list of loaded messages', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      await chats.commitChat({ id: 'chat-1', messages: longChat(8) });
      const edits: Array<[string, (loaded: UIMessage[]) => UIMessage[]]> = [
        [
          'a changed copy in the middle',
          (loaded) =>
            loaded.map((message, index) =>
              index === 5 ? { ...message, parts: [{ type: 'text', text: 'edited' }] } : message,
            ),
        ],
        ['a removed message in the middle', (loaded) => loaded.filter((_, index) => index !== 4)],
        [
          'a message inserted in the middle',
          (loaded) => [...loaded.slice(0, 3), text('inserted', 'user', 'new'), ...loaded.slice(3)],
        ],
        [
          'metadata added to a copy of the first',
          (loaded) => [{ ...(loaded[0] as UIMessage), metadata: { pinned: true } }, ...loaded.slice(1)],
        ],
        [
          'two messages swapped',
          (loaded) => [...loaded.slice(0, 2), loaded[3] as UIMessage, loaded[2] as UIMessage, ...loaded.slice(4)],
        ],
        [
          'a structured clone with a deep change',
          (loaded) => {
            const copy = structuredClone(loaded);
            const part = copy
              .flatMap((message) => message.parts)
              .find((item) => item.type === 'tool-weather' && item.state === 'output-available') as
              { output?: unknown } | undefined;
            if (part === undefined) throw new Error('the chat has no weather output');
            part.output = { temperature: 22, sky: 'clear' };
            return copy;
          },
        ],
        ['the regenerated last message', (loaded) => [...loaded.slice(0, -1), text('regen', 'assistant', 'again')]],
      ];
      for (const [what, edit] of edits) {
        const loaded = await chats.loadChat('chat-1');
        const next = edit(loaded);
        const result = await chats.commitChat({ id: 'chat-1', messages: next });
        expect(result.kind, what).toBe('rewrite');
        expect(await stored(store, 'chat-1'), what).toStrictEqual(json(next));
        expect(await chats.loadChat('chat-1'), what).toStrictEqual(json(next));
      }
    });

    it('reads a list from JSON: unchanged, nothing is written; a change in the middle is saved', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      await chats.commitChat({ id: 'chat-1', messages: longChat(6) });
      const loaded = json(await chats.loadChat('chat-1'));
      const version = await versionOf(store, 'chat-1');
      expect(await chats.commitChat({ id: 'chat-1', messages: loaded })).toEqual({ kind: 'none', version });
      // Fields set to undefined are not data (JSON leaves them out).
      const withUndefined = loaded.map((message) => ({ ...message, metadata: message.metadata }));
      expect((await chats.commitChat({ id: 'chat-1', messages: withUndefined })).kind).toBe('none');
      const changed = loaded.map((message, index) =>
        index === 4 ? { ...message, parts: [...message.parts, { type: 'text' as const, text: 'and more' }] } : message,
      );
      expect((await chats.commitChat({ id: 'chat-1', messages: changed })).kind).toBe('rewrite');
      expect(await stored(store, 'chat-1')).toStrictEqual(json(changed));
    });

    it('refuses an id used twice with a typed error, whichever way the messages came, and writes nothing', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      await chats.commitChat({ id: 'chat-1', messages: longChat(4) });
      const loaded = await chats.loadChat('chat-1');
      const version = await versionOf(store, 'chat-1');
      const lists: UIMessage[][] = [
        [...loaded, loaded[1] as UIMessage],
        [...loaded, { ...(loaded[1] as UIMessage), parts: [{ type: 'text', text: 'a copy' }] }],
        [...loaded.slice(0, -1), text(loaded[0]?.id ?? '', 'assistant', 'reuses the first id')],
        json([...loaded, loaded[2] as UIMessage]),
      ];
      for (const messages of lists) {
        const error = await rejectionOf(chats.commitChat({ id: 'chat-1', messages }));
        expect(error.code).toBe('INVALID_ARGUMENT');
        expect(error.message).toContain('is used twice');
      }
      expect(await versionOf(store, 'chat-1')).toBe(version);
    });

    it('reads an item equal to a stored message in full when it is not plain data: a getter is refused, never called', async () => {
      const store = await stores.open();
      const chats = createChatStore({ store });
      await chats.commitChat({ id: 'chat-1', messages: longChat(2) });
      const loaded = json(await chats.loadChat('chat-1'));
      let calls = 0;
      const withGetter = { ...(loaded[1] as UIMessage) };
      Object.defineProperty(withGetter, 'role', {
        enumerable: true,
        get: () => {
          calls += 1;
          return loaded[1]?.role;
        },
      });
      const proxied = new Proxy(loaded[1] as UIMessage, {});
      const version = await versionOf(store, 'chat-1');
      for (const item of [withGetter, proxied]) {
        const error = await rejectionOf(
          chats.commitChat({ id: 'chat-1', messages: [loaded[0] as UIMessage, item, ...loaded.slice(2)] }),
        );
        expect(error.code).toBe('INVALID_ARGUMENT');
      }
      expect(calls).toBe(0);
      expect(await versionOf(store, 'chat-1')).toBe(version);
    });

    it('plans over what is stored when another writer changed the chat after the load (CONFLICT, never a lost message)', async () => {
      const store = await stores.open();
      const first = createChatStore({ store });
      const second = createChatStore({ store });
      await first.commitChat({ id: 'chat-1', messages: longChat(4) });
      const loaded = await first.loadChat('chat-1');
      const other = await second.loadChat('chat-1');
      await second.commitChat({ id: 'chat-1', messages: [...other, text('from-second', 'user', 'second')] });
      // The first store's list leaves out the second's message: that would remove it.
      const error = await rejectionOf(
        first.commitChat({ id: 'chat-1', messages: [...loaded, text('from-first', 'user', 'first')] }),
      );
      expect(error.code).toBe('CONFLICT');
      // A change of a message the first store loaded, over the second's write, keeps the second's message.
      const edited = [{ ...(loaded[0] as UIMessage), metadata: { edited: true } }, ...loaded.slice(1)];
      const fresh = await first.loadChat('chat-1');
      expect(
        (await first.commitChat({ id: 'chat-1', messages: [edited[0] as UIMessage, ...fresh.slice(1)] })).kind,
      ).toBe('rewrite');
      const now = await stored(store, 'chat-1');
      expect(now.map((message) => message.id).at(-1)).toBe('from-second');
      expect(now[0]?.metadata).toEqual({ edited: true });
    });
  },
  'aisdkcost',
);

/** One edit of a chat, applied to a list of loaded (frozen) messages. */
type Edit =
  | { readonly kind: 'regenerate'; readonly message: UIMessage }
  | { readonly kind: 'append'; readonly message: UIMessage }
  | { readonly kind: 'change'; readonly at: number; readonly message: UIMessage }
  | { readonly kind: 'remove'; readonly at: number }
  | { readonly kind: 'keep' };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  uiMessage.map((message) => ({ kind: 'regenerate' as const, message })),
  uiMessage.map((message) => ({ kind: 'append' as const, message })),
  fc.tuple(fc.nat(), uiMessage).map(([at, message]) => ({ kind: 'change' as const, at, message })),
  fc.nat().map((at) => ({ kind: 'remove' as const, at })),
  fc.constant({ kind: 'keep' as const }),
);

function apply(loaded: readonly UIMessage[], change: Edit): UIMessage[] {
  const ids = new Set(loaded.map((message) => message.id));
  const fresh = (message: UIMessage): boolean => !ids.has(message.id);
  switch (change.kind) {
    case 'regenerate':
      return fresh(change.message) ? [...loaded.slice(0, -1), change.message] : [...loaded];
    case 'append':
      return fresh(change.message) ? [...loaded, change.message] : [...loaded];
    case 'change': {
      const at = change.at % Math.max(loaded.length, 1);
      const target = loaded[at];
      return target === undefined
        ? [...loaded]
        : loaded.map((message, index) => (index === at ? { ...change.message, id: target.id } : message));
    }
    case 'remove':
      return loaded.filter((_, index) => index !== change.at % Math.max(loaded.length, 1));
    case 'keep':
      return [...loaded];
    default: {
      const unreachable: never = change;
      throw new Error(`unknown edit ${JSON.stringify(unreachable)}`);
    }
  }
}

it('plans every edit sequence over handed-out messages as a store that reads every message from JSON does', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 8 }), async (changes) => {
      // One chat store gets the loaded (frozen) objects back; the other the same lists as JSON.
      const fast = createChatStore({ store: memoryStore() });
      const full = createChatStore({ store: memoryStore() });
      const start = longChat(3);
      await fast.commitChat({ id: 'chat', messages: start });
      await full.commitChat({ id: 'chat', messages: json(start) });
      for (const change of changes) {
        const next = apply(await fast.loadChat('chat'), change);
        await full.loadChat('chat');
        const [byIdentity, byJson] = await Promise.all([
          fast.commitChat({ id: 'chat', messages: next }).then(
            (result) => result.kind,
            (error: unknown) => String(error),
          ),
          full.commitChat({ id: 'chat', messages: json(next) }).then(
            (result) => result.kind,
            (error: unknown) => String(error),
          ),
        ]);
        expect(byIdentity).toBe(byJson);
        expect(await fast.loadChat('chat')).toStrictEqual(await full.loadChat('chat'));
      }
    }),
    { numRuns: 60 },
  );
});
