import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeGraph } from '../../active-memory/graph/knowledge-graph.js';
import { memoryStore } from '../../stores/memory.js';
import { graphImporterFor, isGraphSystem } from '../index.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-mcp-memory-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const lines = (...items: unknown[]): string =>
  items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n');

describe('the mcp-memory importer', () => {
  it('reads entities and relations; a repeated entity gathers its observations when merged', async () => {
    expect(isGraphSystem('mcp-memory')).toBe(true);
    const path = join(dir, 'memory.jsonl');
    await writeFile(
      path,
      lines(
        { type: 'entity', name: 'A', entityType: 'person', observations: ['one'] },
        '',
        { type: 'relation', from: 'A', to: 'B', relationType: 'knows' },
        { type: 'entity', name: 'A', entityType: 'person', observations: ['two', 'one'] },
      ),
    );
    const read = await (await graphImporterFor('mcp-memory')).read(path);
    expect(read.problems).toEqual([]);
    expect(read.lines).toBe(4);
    const graph = new KnowledgeGraph({ store: memoryStore(), userId: 'u' });
    expect(await graph.merge(read.graph)).toEqual({ entities: 1, observations: 2, relations: 1 });
    expect(await graph.read()).toEqual({
      entities: [{ name: 'A', entityType: 'person', observations: ['one', 'two'] }],
      relations: [{ from: 'A', to: 'B', relationType: 'knows' }],
    });
  });

  it('names every bad line with its problem', async () => {
    const path = join(dir, 'bad.jsonl');
    await writeFile(
      path,
      lines(
        '{nope',
        '[1]',
        { type: 'entity', name: 'A', entityType: 'person' },
        { type: 'entity', name: 'A', entityType: 7, observations: [] },
        { type: 'relation', from: 'A', to: 'B' },
        { type: 'widget' },
        { type: 'entity', name: 'ok', entityType: 't', observations: [] },
      ),
    );
    const read = await (await graphImporterFor('mcp-memory')).read(path);
    expect(read.problems.map((problem) => [problem.source.line, problem.code, problem.message])).toEqual([
      [1, 'INVALID_ARGUMENT', expect.stringMatching(/^not JSON/)],
      [2, 'INVALID_ARGUMENT', 'not a JSON object'],
      [3, 'INVALID_ARGUMENT', 'entity: observations is missing'],
      [4, 'INVALID_ARGUMENT', 'entity.entityType: expected a string, got number'],
      [5, 'INVALID_ARGUMENT', 'relation.relationType: expected a string, got undefined'],
      [6, 'INVALID_ARGUMENT', 'type must be "entity" or "relation", got "widget"'],
    ]);
    expect(read.graph.entities).toHaveLength(1);
  });

  it('refuses a missing path and a directory, saying what it reads', async () => {
    const importer = await graphImporterFor('mcp-memory');
    await expect(importer.read(join(dir, 'absent.jsonl'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(importer.read(dir)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(graphImporterFor('penguin')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
