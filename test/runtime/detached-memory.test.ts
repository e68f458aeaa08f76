/**
 * The memory `chatWithState` gives tools when the caller gives none: history pages over the
 * state's messages, `temp` values, and a clear error for everything that needs a store.
 */
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { detachedMemory } from '../../src/runtime/detached-memory.js';

const history = Array.from({ length: 7 }, (_, i) => Message.user(`m${i + 1}`));

describe('detachedMemory', () => {
  it('pages through the history newest page first, with a cursor to the older one', async () => {
    const memory = detachedMemory('state', history);
    const texts = (messages: readonly Message[]): string[] => messages.map((message) => Message.text(message));
    const first = await memory.history({ limit: 3 });
    expect(texts(first.messages)).toEqual(['m5', 'm6', 'm7']);
    const second = await memory.history({ limit: 3, before: first.nextBefore });
    expect(texts(second.messages)).toEqual(['m2', 'm3', 'm4']);
    const last = await memory.history({ limit: 3, before: second.nextBefore });
    expect(texts(last.messages)).toEqual(['m1']);
    expect(last.nextBefore).toBeUndefined();
    expect(texts((await memory.history()).messages)).toHaveLength(7);
    await expect(memory.history({ limit: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('keeps temp values and refuses the scopes and searches that need a store', async () => {
    const memory = detachedMemory('state', history);
    await memory.store('draft', { step: 1 }, { scope: 'temp' });
    expect(await memory.get('draft', { scope: 'temp' })).toEqual({ step: 1 });
    expect(await memory.get('missing', { scope: 'temp', default: 'none' })).toBe('none');
    await memory.store('draft', undefined, { scope: 'temp' });
    expect(await memory.get('draft', { scope: 'temp' })).toBeUndefined();
    for (const scope of ['session', 'user', 'agent', 'app'] as const) {
      await expect(memory.store('k', 1, { scope })).rejects.toMatchObject({ code: 'MISSING_COLLABORATOR' });
      await expect(memory.get('k', { scope })).rejects.toMatchObject({ code: 'MISSING_COLLABORATOR' });
    }
    await expect(memory.recall('anything')).rejects.toMatchObject({ code: 'MISSING_COLLABORATOR' });
    await expect(memory.remember('a fact')).rejects.toMatchObject({ code: 'MISSING_COLLABORATOR' });
    await expect(memory.store('__proto__', 1, { scope: 'temp' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
