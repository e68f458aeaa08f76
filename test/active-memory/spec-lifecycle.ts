/** Facts with a lifecycle on every store: superseded, valid from a time, forgotten; recall as of a time. */
import { expect, it } from 'vitest';
import { knowledgeSessionId } from '../../src/active-memory/knowledge.js';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { InvalidInputError, NotFoundError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { expectRejection, type Stores } from './harness.js';

/** Registers the fact lifecycle tests. */
export function lifecycleSpec(stores: Stores): void {
  it('does not recall a superseded fact, shows it with includeSuperseded, and answers as of a time', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    const old = await handle.remember('The user lives in Lisbon', {
      validFrom: '2024-01-01T00:00:00Z',
      tags: ['home'],
    });
    const moved = await handle.remember('The user lives in Porto', {
      supersedes: old.messageId,
      validFrom: '2025-06-01T00:00:00Z',
    });
    expect(moved).toMatchObject({ supersedes: old.messageId, validFrom: '2025-06-01T00:00:00.000Z' });
    const now = await handle.recall('where does the user live', { k: 10 });
    expect(now.map((hit) => hit.text)).toEqual(['The user lives in Porto']);
    expect(now[0]).toMatchObject({ source: 'knowledge', messageId: moved.messageId, supersedes: old.messageId });

    const all = await handle.recall('where does the user live', { k: 10, includeSuperseded: true });
    expect(all.map((hit) => hit.text).sort()).toEqual(['The user lives in Lisbon', 'The user lives in Porto']);
    expect(all.find((hit) => hit.messageId === old.messageId)).toMatchObject({
      supersededBy: moved.messageId,
      tags: ['home'],
    });

    const before = await handle.recall('where does the user live', { k: 10, asOf: '2025-01-01T00:00:00Z' });
    expect(before.map((hit) => hit.text)).toEqual(['The user lives in Lisbon']);
    const after = await handle.recall('where does the user live', { k: 10, asOf: new Date('2025-07-01T00:00:00Z') });
    expect(after.map((hit) => hit.text)).toEqual(['The user lives in Porto']);
    // Before either fact held, neither is recalled.
    expect(await handle.recall('where does the user live', { asOf: '2023-01-01T00:00:00Z' })).toEqual([]);
  });

  it('recalls only messages written by asOf', async () => {
    const store = await stores.open();
    await store.save(
      Session.create({
        id: 'diary',
        userId: 'u1',
        messages: [
          Message.user('my bicycle is red', { timestamp: '2024-03-01T00:00:00Z' }),
          Message.user('I painted my bicycle blue', { timestamp: '2024-09-01T00:00:00Z' }),
        ],
      }),
    );
    const handle = createSessionHandle({ store, sessionId: 'diary', userId: 'u1' });
    expect((await handle.recall('bicycle', { k: 10 })).length).toBe(2);
    const then = await handle.recall('bicycle', { k: 10, asOf: '2024-06-01T00:00:00Z' });
    expect(then.map((hit) => hit.text)).toEqual(['my bicycle is red']);
  });

  it('keeps k hits when a filter drops better ranked ones', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    let previous: string | undefined;
    // A chain of corrections: only its last fact holds, however well the others rank.
    for (let index = 0; index < 12; index += 1) {
      const hit = await handle.remember(`the project codename is alpha alpha version ${index}`, {
        ...(previous === undefined ? {} : { supersedes: previous }),
      });
      previous = hit.messageId;
    }
    await handle.remember('the project codename alpha was chosen by Kim');
    const hits = await handle.recall('project codename alpha', { k: 2 });
    expect(hits.map((hit) => hit.text).sort()).toEqual([
      'the project codename alpha was chosen by Kim',
      'the project codename is alpha alpha version 11',
    ]);
  });

  it('forgets a fact: recall no longer finds it and the stored session no longer holds its text', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    const secret = await handle.remember('The user door code is 4711 zanzibar');
    await handle.remember('The user likes zanzibar spices');
    expect((await handle.recall('zanzibar', { k: 10 })).length).toBe(2);
    await handle.forget(secret.messageId);
    const hits = await handle.recall('zanzibar', { k: 10 });
    expect(hits.map((hit) => hit.text)).toEqual(['The user likes zanzibar spices']);
    const stored = await store.load(knowledgeSessionId('u1'));
    expect(JSON.stringify(stored.toJSON())).not.toContain('4711');
    // Another handle (another process's view) finds it gone too.
    const reopened = await stores.reopen(store);
    const fresh = createSessionHandle({ store: reopened, sessionId: 'chat', userId: 'u1' });
    expect((await fresh.recall('door code 4711', { k: 10 })).map((hit) => hit.text)).not.toContain(
      'The user door code is 4711 zanzibar',
    );
    await expectRejection(fresh.forget(secret.messageId), NotFoundError, 'NOT_FOUND');
  });

  it('refuses bad fact ids and options with typed errors', async () => {
    const store = await stores.open();
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    const fact = await handle.remember('The user plays the cello');
    await expectRejection(handle.forget('../etc/passwd'), InvalidInputError, 'INVALID_ID');
    await expectRejection(handle.forget('msg-unknown'), NotFoundError, 'NOT_FOUND');
    await expectRejection(handle.remember('x', { supersedes: 'msg-unknown' }), NotFoundError, 'NOT_FOUND');
    await expectRejection(handle.remember('x', { supersedes: '' }), InvalidInputError, 'INVALID_ID');
    await expectRejection(handle.remember('x', { validFrom: 'yesterday' }), InvalidInputError, 'INVALID_ARGUMENT');
    await expectRejection(handle.remember('x', { tags: [''] }), InvalidInputError, 'INVALID_ARGUMENT');
    await expectRejection(handle.recall('cello', { asOf: 'soon' }), InvalidInputError, 'INVALID_ARGUMENT');
    // Another user cannot forget (or supersede) this user's fact: it is not theirs.
    const other = createSessionHandle({ store, sessionId: 'other', userId: 'u2' });
    await expectRejection(other.forget(fact.messageId), NotFoundError, 'NOT_FOUND');
    await expectRejection(other.remember('x', { supersedes: fact.messageId }), NotFoundError, 'NOT_FOUND');
    expect((await handle.recall('cello')).map((hit) => hit.text)).toEqual(['The user plays the cello']);
  });
}
