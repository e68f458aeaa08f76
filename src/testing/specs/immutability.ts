/**
 * Immutability at the boundary: nothing a caller gives or gets back is shared with what is stored.
 * @module
 */
import { expect } from 'vitest';
import { Message, type MessageInput } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { freshId, richSession } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** True when `value` and everything reachable from it is frozen. */
function deeplyFrozen(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value !== 'object' || value === null || seen.has(value)) return true;
  seen.add(value);
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every((child) => deeplyFrozen(child, seen));
}

/**
 * Tries every kind of mutation on `value` and what it holds, ignoring refusals (a frozen value
 * refuses silently through `Reflect`, a proxy may throw): only the effect on the store matters.
 */
function vandalize(value: unknown, seen = new Set<unknown>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  for (const child of Object.values(value)) vandalize(child, seen);
  const attempt = (change: () => unknown): void => {
    try {
      change();
    } catch {
      // Refusing the change is a correct answer.
    }
  };
  if (Array.isArray(value)) {
    attempt(() => value.push('vandal'));
    attempt(() => value.reverse());
    attempt(() => Reflect.set(value, 0, 'vandal'));
    return;
  }
  for (const key of Object.keys(value)) {
    attempt(() => Reflect.set(value, key, 'vandal'));
  }
  attempt(() => Reflect.set(value, 'vandal', true));
  attempt(() => Reflect.deleteProperty(value, Object.keys(value)[0] ?? 'id'));
}

/** Registers the immutability spec. */
export function immutabilitySpec(suite: ConformanceSuite): void {
  suite.describe('immutability', 'immutability at the boundary', (spec) => {
    spec.it(
      'sessions and messages returned by save, load, get, append and readMessages are deeply frozen',
      async () => {
        const store = await spec.open();
        const saved = await store.save(richSession());
        const appended = await store.append(saved.id, [Message.user('one more', { id: 'late' })]);
        const returned = [
          saved,
          await store.load(saved.id),
          await store.get(saved.id),
          ...appended.appended,
          ...(await store.readMessages(saved.id)),
        ];
        for (const value of returned) expect(deeplyFrozen(value)).toBe(true);
      },
    );

    spec.it('list rows and append results are frozen', async () => {
      const store = await spec.open();
      const saved = await store.save(richSession());
      const result = await store.append(saved.id, [Message.user('again', { id: 'again' })]);
      expect(deeplyFrozen(result)).toBe(true);
      for (const row of await store.list()) expect(deeplyFrozen(row)).toBe(true);
    });

    spec.it('mutating anything returned changes nothing stored', async () => {
      const store = await spec.open();
      const saved = await store.save(richSession());
      const snapshot = saved.toJSON();
      const rows = await store.list();
      const rowSnapshot = structuredClone(rows);
      vandalize(saved);
      vandalize(await store.load(saved.id));
      vandalize(await store.get(saved.id));
      vandalize(await store.readMessages(saved.id));
      vandalize(await store.readMessages(saved.id, { limit: 2 }));
      vandalize(rows);
      vandalize(await store.append(saved.id, saved.messages.slice(0, 2)));
      expect((await store.load(saved.id)).toJSON()).toEqual(snapshot);
      expect(await store.list()).toEqual(rowSnapshot);
    });

    spec.it('mutating the inputs after a call changes nothing stored', async () => {
      const store = await spec.open();
      const id = freshId();
      await store.save(Session.create({ id }));
      const input: MessageInput = {
        id: 'input-1',
        role: 'user',
        content: [{ type: 'text', text: 'original' }],
        metadata: { tag: 'original' },
      };
      const batch: MessageInput[] = [input];
      await store.append(id, batch);
      vandalize(input);
      vandalize(batch);
      const loaded = await store.load(id);
      expect(loaded.messages).toHaveLength(1);
      expect(loaded.messages[0]).toMatchObject({
        id: 'input-1',
        content: [{ type: 'text', text: 'original' }],
        metadata: { tag: 'original' },
      });
    });

    spec.it('a session saved under one version is not changed by saving its successor', async () => {
      const store = await spec.open();
      const first = await store.save(richSession());
      const firstJson = first.toJSON();
      await store.save(first.append(Message.user('next', { id: 'next' })).withMetadata({ step: 2 }));
      expect(first.toJSON()).toEqual(firstJson);
      expect((await store.load(first.id)).messages).toHaveLength(first.messages.length + 1);
    });
  });
}
