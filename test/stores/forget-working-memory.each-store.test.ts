/**
 * forgetUser removes the user's working memories (sessions of theirs, shared and per agent) and no
 * other user's, on every store. Kept out of the forget-user conformance spec: `src/testing` sits
 * below active memory in the layers (`.dependency-cruiser.cjs`) and cannot import `WorkingMemory`.
 */
import { expect, it } from 'vitest';
import { WorkingMemory } from '../../src/active-memory/working-memory.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { describeEveryStore, storesOf } from '../support/stores-under-test.js';

const memories = (store: SessionStore, user: string): WorkingMemory[] => [
  new WorkingMemory({ store, userId: user }),
  new WorkingMemory({ store, userId: user, agentId: 'helper' }),
];

await describeEveryStore('forgetUser and working memory', (subject) => {
  const stores = storesOf(subject);

  it("removes the user's working memories (shared and per agent), and no other user's", async () => {
    const store = await stores.open();
    for (const memory of [...memories(store, 'ivy'), ...memories(store, 'jon')]) {
      await memory.update({ note: `about ${memory.userId}` });
      await memory.update({ more: memory.userId });
    }
    const before = await Promise.all(memories(store, 'jon').map((memory) => memory.read()));
    const receipt = await store.forgetUser('ivy');
    // Working memories are sessions of the user: two of them (their messages are the module's business).
    expect(receipt.removed.sessions).toBe(2);
    for (const memory of memories(store, 'ivy')) {
      expect(await memory.read()).toEqual({ version: 0, document: {} });
      expect(await store.get(memory.sessionId)).toBeUndefined();
    }
    expect(await Promise.all(memories(store, 'jon').map((memory) => memory.read()))).toEqual(before);
  });
});
