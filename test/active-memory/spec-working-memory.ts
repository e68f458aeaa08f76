/** Working memory on every store: merge patches, versions, compare-and-set, schema and size limits. */
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { WorkingMemory, workingMemorySessionId } from '../../src/active-memory/working-memory.js';
import { ConflictError, DataError, InvalidInputError } from '../../src/errors.js';
import { Session } from '../../src/session/session.js';
import { expectRejection, seedSession, type Stores } from './harness.js';

/** Registers the working memory tests. */
export function workingMemorySpec(stores: Stores): void {
  it('starts empty, applies merge patches, and keeps every version with who wrote it', async () => {
    const store = await stores.open();
    const memory = new WorkingMemory({ store, userId: 'u1' });
    expect(await memory.read()).toEqual({ version: 0, document: {} });
    expect((await memory.history()).versions).toEqual([]);
    const first = await memory.update({ name: 'Ada', prefs: { tea: 'green', diet: 'none' } }, { by: 'agent:coach' });
    expect(first).toMatchObject({ version: 2, document: { name: 'Ada', prefs: { tea: 'green', diet: 'none' } } });
    const second = await memory.update({ prefs: { diet: null, tea: 'black' }, city: 'Oslo' }, { by: 'user' });
    expect(second.document).toEqual({ name: 'Ada', prefs: { tea: 'black' }, city: 'Oslo' });
    // A second store over the same data (a restart, another process) reads the same newest version.
    const reopened = await stores.reopen(store);
    const again = new WorkingMemory({ store: reopened, userId: 'u1' });
    expect(await again.read()).toEqual(second);
    const { versions } = await again.history();
    expect(versions.map((version) => [version.version, version.by, version.document])).toEqual([
      [1, 'agent:coach', {}],
      [2, 'agent:coach', { name: 'Ada', prefs: { tea: 'green', diet: 'none' } }],
      [3, 'user', { name: 'Ada', prefs: { tea: 'black' }, city: 'Oslo' }],
    ]);
    expect(versions[2]?.patch).toEqual({ prefs: { diet: null, tea: 'black' }, city: 'Oslo' });
    for (const version of versions) expect(Number.isNaN(Date.parse(version.at ?? ''))).toBe(false);
    // Pages of versions, newest page first.
    const page = await again.history({ limit: 2 });
    expect(page.versions.map((version) => version.version)).toEqual([2, 3]);
    const older = await again.history({ limit: 2, before: page.nextBefore as number });
    expect(older.versions.map((version) => version.version)).toEqual([1]);
    expect(older.nextBefore).toBeUndefined();
  });

  it('keeps a memory per user, and per agent when asked, each in a session of its user', async () => {
    const store = await stores.open();
    await new WorkingMemory({ store, userId: 'u1' }).update({ who: 'u1' });
    await new WorkingMemory({ store, userId: 'u2' }).update({ who: 'u2' });
    await new WorkingMemory({ store, userId: 'u1', agentId: 'coach' }).update({ who: 'u1 with coach' });
    expect((await new WorkingMemory({ store, userId: 'u1' }).read()).document).toEqual({ who: 'u1' });
    expect((await new WorkingMemory({ store, userId: 'u2' }).read()).document).toEqual({ who: 'u2' });
    expect((await new WorkingMemory({ store, userId: 'u1', agentId: 'coach' }).read()).document).toEqual({
      who: 'u1 with coach',
    });
    const row = await store.summary(workingMemorySessionId('u1', 'coach'));
    expect([row?.userId, row?.agentId]).toEqual(['u1', 'coach']);
  });

  it('never loses a concurrent edit: a writer that finds a newer version applies its patch to it', async () => {
    const store = await stores.open();
    // Two handles as two servers would hold them: nothing shared in process but the store.
    const writers = [new WorkingMemory({ store, userId: 'u1' }), new WorkingMemory({ store, userId: 'u1' })];
    const edits = 12;
    await Promise.all(
      writers.map(async (memory, writer) => {
        for (let index = 0; index < edits; index += 1)
          await memory.update({ [`w${writer}-${index}`]: index }, { by: `writer-${writer}` });
      }),
    );
    const final = await writers[0]?.read();
    expect(Object.keys(final?.document ?? {})).toHaveLength(2 * edits);
    expect(final?.version).toBe(2 * edits + 1);
    const { versions } = await (writers[0] as WorkingMemory).history({ limit: 1000 });
    expect(versions.map((version) => version.version)).toEqual(
      Array.from({ length: 2 * edits + 1 }, (_, index) => index + 1),
    );
  });

  it('refuses with CONFLICT a patch made against a version that is no longer the newest', async () => {
    const store = await stores.open();
    const memory = new WorkingMemory({ store, userId: 'u1' });
    await expectRejection(memory.update({ a: 1 }, { expectedVersion: 3 }), ConflictError, 'CONFLICT');
    const created = await memory.update({ a: 1 }, { expectedVersion: 0 });
    await memory.update({ b: 2 });
    await expectRejection(memory.update({ a: 9 }, { expectedVersion: created.version }), ConflictError, 'CONFLICT');
    expect((await memory.read()).document).toEqual({ a: 1, b: 2 });
  });

  it('refuses a document that does not match its schema (zod or JSON Schema) and writes nothing', async () => {
    const store = await stores.open();
    const zodMemory = new WorkingMemory({
      store,
      userId: 'u1',
      schema: z.object({ name: z.string(), tasks: z.array(z.string()).optional() }),
    });
    await expectRejection(zodMemory.update({ tasks: ['x'] }), InvalidInputError, 'INVALID_ARGUMENT');
    expect(await store.summary(zodMemory.sessionId)).toBeUndefined();
    await zodMemory.update({ name: 'Ada' });
    await expectRejection(zodMemory.update({ name: 7 }), InvalidInputError, 'INVALID_ARGUMENT');
    const jsonMemory = new WorkingMemory({
      store,
      userId: 'u1',
      schema: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
    });
    await expectRejection(jsonMemory.update({ extra: true }), InvalidInputError, 'INVALID_ARGUMENT');
    const { versions } = await zodMemory.history();
    expect(versions.map((version) => version.document)).toEqual([{}, { name: 'Ada' }]);
    await jsonMemory.update({ name: 'Grace' });
    expect((await zodMemory.read()).document).toEqual({ name: 'Grace' });
  });

  it('refuses a document over the size limit with TOO_LARGE and writes nothing', async () => {
    const store = await stores.open();
    const memory = new WorkingMemory({ store, userId: 'u1', maxBytes: 100 });
    await memory.update({ note: 'short' });
    const error = await memory.update({ note: 'x'.repeat(200) }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('TOO_LARGE');
    expect((error as InvalidInputError).details).toMatchObject({ limit: 100 });
    expect(await memory.read()).toMatchObject({ version: 2, document: { note: 'short' } });
  });

  it('refuses patches that are not JSON objects, and a session under its id that belongs to someone else', async () => {
    const store = await stores.open();
    const memory = new WorkingMemory({ store, userId: 'u1' });
    for (const patch of [null, [1], 'text', 3])
      await expectRejection(memory.update(patch as never), InvalidInputError, 'INVALID_ARGUMENT');
    await store.save(Session.create({ id: workingMemorySessionId('victim'), userId: 'mallory' }));
    await expectRejection(new WorkingMemory({ store, userId: 'victim' }).read(), DataError, 'CORRUPT');
  });

  it('is reached through a session handle, and recall never returns its versions', async () => {
    const store = await stores.open();
    await seedSession(store, 's1', 'u1', ['my favourite colour is teal']);
    const handle = createSessionHandle({ store, sessionId: 's1', userId: 'u1' });
    await handle.updateWorkingMemory({ colour: 'teal', note: 'favourite colour teal' });
    expect((await handle.readWorkingMemory()).document).toEqual({ colour: 'teal', note: 'favourite colour teal' });
    const hits = await handle.recall('favourite colour teal', { k: 10 });
    expect(hits.map((hit) => hit.sessionId)).toEqual(['s1']);
    const perAgent = createSessionHandle({
      store,
      sessionId: 's1',
      userId: 'u1',
      agentId: 'coach',
      workingMemory: { scope: 'agent' },
    });
    expect((await perAgent.readWorkingMemory()).version).toBe(0);
    const userless = createSessionHandle({ store, sessionId: 's2' });
    await expectRejection(userless.readWorkingMemory(), InvalidInputError, 'INVALID_ARGUMENT');
  });
}
