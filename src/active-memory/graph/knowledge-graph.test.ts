import { describe, expect, it } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { memoryStore } from '../../stores/memory.js';
import { KnowledgeGraph, knowledgeGraphSessionId } from './knowledge-graph.js';

describe('KnowledgeGraph', () => {
  it('loses no write of writers that interleave (each plans again on CONFLICT)', async () => {
    const store = memoryStore();
    const writers = Array.from({ length: 4 }, () => new KnowledgeGraph({ store, userId: 'u' }));
    await writers[0]!.createEntities([{ name: 'hub', entityType: 'hub', observations: [] }]);
    await Promise.all(
      writers.map(async (graph, writer) => {
        for (let round = 0; round < 15; round++)
          await graph.addObservations([{ entityName: 'hub', contents: [`${writer}-${round}`] }]);
      }),
    );
    const [hub] = (await writers[0]!.read()).entities;
    expect(hub?.observations).toHaveLength(60);
    expect(new Set(hub?.observations).size).toBe(60);
  });

  it('merges a large graph atomically in several messages, and folds it back', async () => {
    const store = memoryStore();
    const graph = new KnowledgeGraph({ store, userId: 'u' });
    const entities = Array.from({ length: 3000 }, (_, index) => ({
      name: `e${index}`,
      entityType: 't',
      observations: [`${'x'.repeat(200)} ${index}`],
    }));
    const relations = entities
      .slice(1)
      .map((entity, index) => ({ from: entity.name, to: `e${index}`, relationType: 'after' }));
    expect(await graph.merge({ entities, relations })).toEqual({ entities: 3000, observations: 3000, relations: 2999 });
    expect((await store.summary(graph.sessionId))?.messageCount).toBeGreaterThan(1);
    const read = await graph.read();
    expect(read.entities).toHaveLength(3000);
    expect(read.relations).toHaveLength(2999);
    expect(await graph.merge({ entities, relations })).toEqual({ entities: 0, observations: 0, relations: 0 });
  });

  it('refuses a graph session that is not its user’s, and a message that is not a change', async () => {
    const store = memoryStore();
    const id = knowledgeGraphSessionId('u');
    await store.save(Session.create({ id, userId: 'mallory' }));
    await expect(new KnowledgeGraph({ store, userId: 'u' }).read()).rejects.toMatchObject({ code: 'CORRUPT' });
    const other = knowledgeGraphSessionId('v');
    await store.save(Session.create({ id: other, userId: 'v', messages: [Message.context('hello')] }));
    await expect(new KnowledgeGraph({ store, userId: 'v' }).read()).rejects.toMatchObject({ code: 'CORRUPT' });
  });

  it('checks its input, writing nothing for a bad item', async () => {
    const store = memoryStore();
    const graph = new KnowledgeGraph({ store, userId: 'u' });
    await expect(
      graph.createEntities([
        { name: 'ok', entityType: 't', observations: [] },
        { name: 'bad', entityType: 't', observations: ['\uD800'] },
      ]),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'entities[1].observations[0]: is not well-formed Unicode',
    });
    expect(await graph.read()).toEqual({ entities: [], relations: [] });
    expect(() => new KnowledgeGraph({ store, userId: '' })).toThrow();
  });

  it('reads an unchanged graph once, and sees every change another writer makes (a delete and a new graph too)', async () => {
    const store = memoryStore();
    let gets = 0;
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'get') gets += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const reader = new KnowledgeGraph({ store: counted, userId: 'u' });
    const writer = new KnowledgeGraph({ store, userId: 'u' });
    await writer.createEntities([{ name: 'a', entityType: 't', observations: ['one'] }]);
    expect((await reader.search('one')).entities.map((e) => e.name)).toEqual(['a']);
    await reader.read();
    await reader.open(['a']);
    expect(gets).toBe(1);
    await writer.addObservations([{ entityName: 'a', contents: ['two'] }]);
    expect((await reader.open(['a'])).entities[0]?.observations).toEqual(['one', 'two']);
    await writer.deleteObservations([{ entityName: 'a', observations: ['one'] }]);
    expect((await reader.read()).entities[0]?.observations).toEqual(['two']);
    // Deleted and made again: the new graph starts at version 1 again, and is still seen.
    await store.delete(writer.sessionId);
    expect(await reader.read()).toEqual({ entities: [], relations: [] });
    await writer.createEntities([{ name: 'b', entityType: 't', observations: [] }]);
    expect((await reader.read()).entities.map((e) => e.name)).toEqual(['b']);
    await store.delete(writer.sessionId);
    // A graph made again within the same millisecond at the same version would pass for the one read (see `markOf`).
    await new Promise((resolve) => setTimeout(resolve, 2));
    await writer.createEntities([{ name: 'c', entityType: 't', observations: [] }]);
    expect((await reader.read()).entities.map((e) => e.name)).toEqual(['c']);
  });
});
