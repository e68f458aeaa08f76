/**
 * The reference MCP memory server's tools, by its names and argument shapes, over the user's
 * `KnowledgeGraph`: what a client written for that server calls works unchanged, and concurrent
 * writers (several clients, several processes) lose nothing.
 * @module
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { KnowledgeGraph } from '../active-memory/graph/knowledge-graph.js';
import type { McpScope } from './context.js';
import { guarded, jsonResult, textResult } from './results.js';

const entity = z.object({
  name: z.string().describe('The name of the entity (unique in the graph)'),
  entityType: z.string().describe('The type of the entity, such as person or organization'),
  observations: z.array(z.string()).describe('Facts about the entity, one per item'),
});

const relation = z.object({
  from: z.string().describe('The name of the entity the relation starts at'),
  to: z.string().describe('The name of the entity the relation ends at'),
  relationType: z.string().describe('The type of the relation, in active voice (works_at)'),
});

/** Registers the nine knowledge graph tools on `server`. */
export function registerGraphTools(server: McpServer, scope: McpScope): void {
  const graph = new KnowledgeGraph({ store: scope.store, userId: scope.userId });
  const changed = (): void => scope.changed?.(graph.sessionId);

  server.registerTool(
    'create_entities',
    {
      description: 'Create new entities in the knowledge graph; an entity whose name exists is left as it is',
      inputSchema: { entities: z.array(entity) },
    },
    guarded(async ({ entities }) => {
      const created = await graph.createEntities(entities);
      if (created.length > 0) changed();
      return jsonResult({ entities: created }, created);
    }),
  );
  server.registerTool(
    'create_relations',
    {
      description:
        'Create new relations between entities of the knowledge graph (in active voice); duplicates are skipped',
      inputSchema: { relations: z.array(relation) },
    },
    guarded(async ({ relations }) => {
      const created = await graph.createRelations(relations);
      if (created.length > 0) changed();
      return jsonResult({ relations: created }, created);
    }),
  );
  server.registerTool(
    'add_observations',
    {
      description: 'Add observations to existing entities; fails, adding nothing, when an entity does not exist',
      inputSchema: {
        observations: z.array(
          z.object({
            entityName: z.string().describe('The entity to add the observations to'),
            contents: z.array(z.string()).describe('The observations to add'),
          }),
        ),
      },
    },
    guarded(async ({ observations }) => {
      const results = await graph.addObservations(observations);
      if (results.some((result) => result.addedObservations.length > 0)) changed();
      return jsonResult({ results }, results);
    }),
  );
  server.registerTool(
    'delete_entities',
    {
      description: 'Delete entities and every relation from or to them',
      inputSchema: { entityNames: z.array(z.string()).describe('The names of the entities to delete') },
    },
    guarded(async ({ entityNames }) => {
      await graph.deleteEntities(entityNames);
      changed();
      return textResult('Entities deleted successfully');
    }),
  );
  server.registerTool(
    'delete_observations',
    {
      description: 'Delete observations of entities',
      inputSchema: {
        deletions: z.array(
          z.object({
            entityName: z.string().describe('The entity whose observations are deleted'),
            observations: z.array(z.string()).describe('The observations to delete'),
          }),
        ),
      },
    },
    guarded(async ({ deletions }) => {
      await graph.deleteObservations(deletions);
      changed();
      return textResult('Observations deleted successfully');
    }),
  );
  server.registerTool(
    'delete_relations',
    {
      description: 'Delete relations from the knowledge graph',
      inputSchema: { relations: z.array(relation).describe('The relations to delete') },
    },
    guarded(async ({ relations }) => {
      await graph.deleteRelations(relations);
      changed();
      return textResult('Relations deleted successfully');
    }),
  );
  server.registerTool(
    'read_graph',
    { description: 'Read the whole knowledge graph', inputSchema: {}, annotations: { readOnlyHint: true } },
    guarded(async () => {
      const data = await graph.read();
      return jsonResult({ entities: data.entities, relations: data.relations });
    }),
  );
  server.registerTool(
    'search_nodes',
    {
      description:
        'Find the entities whose name, type or observations contain the query (case-insensitive), with the relations between them',
      inputSchema: { query: z.string().describe('The text to look for') },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ query }) => {
      const data = await graph.search(query);
      return jsonResult({ entities: data.entities, relations: data.relations });
    }),
  );
  server.registerTool(
    'open_nodes',
    {
      description: 'Read entities by name, with the relations between them',
      inputSchema: { names: z.array(z.string()).describe('The names of the entities to read') },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ names }) => {
      const data = await graph.open(names);
      return jsonResult({ entities: data.entities, relations: data.relations });
    }),
  );
}
