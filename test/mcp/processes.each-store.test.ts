/**
 * Four `chatstate mcp` processes writing to one store at once (the situation in which the reference
 * memory server loses writes: modelcontextprotocol/servers#4797). Each, through the SDK's client,
 * creates entities, adds observations to one entity they all share, relates its entities to it and
 * remembers facts. Afterwards every write is there exactly once. Over every store a process can
 * share (the memory store lives in one process).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KnowledgeGraph } from '../../src/active-memory/graph/knowledge-graph.js';
import { knowledgeSessionId } from '../../src/active-memory/knowledge.js';
import { openStore } from '../../src/stores/open-store.js';
import { cliStores } from '../cli/cli-stores.js';
import { describeEachStore } from '../support/stores-under-test.js';
import { call, stdioClient, type StdioSession } from './mcp-clients.js';

/** Server processes writing at once. */
const WRITERS = 4;
/** Rounds of each writer: each round is four tool calls, each a write. */
const ROUNDS = 12;

describeEachStore(
  cliStores().filter((store) => store.shared),
  'four chatstate mcp processes on one $name store',
  (kind) => {
    let skipped: string | undefined;
    beforeAll(async () => {
      skipped = await kind.start();
    }, 180_000);
    afterAll(() => kind.stop());

    it('lose no write: every entity, observation, relation and fact is there exactly once', async (context) => {
      if (skipped !== undefined) return context.skip(skipped);
      const url = await kind.freshUrl();
      const sessions: StdioSession[] = [];
      try {
        for (let writer = 0; writer < WRITERS; writer++)
          sessions.push(await stdioClient(['--store', url, '--user', 'shared-user']));
        const started = performance.now();
        const created = await Promise.all(
          sessions.map(async ({ client }, writer) => {
            // Every writer creates the shared entity: exactly one of them may be told it did.
            const made = await call<{ entities: unknown[] }>(client, 'create_entities', {
              entities: [{ name: 'shared', entityType: 'hub', observations: [] }],
            });
            for (let round = 0; round < ROUNDS; round++) {
              const own = `w${writer}-e${round}`;
              await call(client, 'create_entities', {
                entities: [{ name: own, entityType: 'thing', observations: [`${own} first`] }],
              });
              await call(client, 'add_observations', {
                observations: [{ entityName: 'shared', contents: [`w${writer} said ${round}`] }],
              });
              await call(client, 'create_relations', {
                relations: [{ from: own, to: 'shared', relationType: 'part_of' }],
              });
              await call(client, 'remember', { text: `Writer ${writer} remembers fact ${round}.` });
            }
            return made.entities.length;
          }),
        );
        const elapsed = performance.now() - started;
        const writes = WRITERS * (ROUNDS * 4 + 1);

        const store = await openStore(url);
        try {
          const graph = await new KnowledgeGraph({ store, userId: 'shared-user' }).read();
          const facts = (await store.get(knowledgeSessionId('shared-user')))?.messages.map((message) =>
            typeof message.content === 'string' ? message.content : '',
          );
          const names = graph.entities.map((entity) => entity.name).sort();
          const expectedNames = [
            'shared',
            ...Array.from({ length: WRITERS }, (_, writer) =>
              Array.from({ length: ROUNDS }, (_unused, round) => `w${writer}-e${round}`),
            ).flat(),
          ].sort();
          const shared = graph.entities.find((entity) => entity.name === 'shared');
          const said = Array.from({ length: WRITERS }, (_, writer) =>
            Array.from({ length: ROUNDS }, (_unused, round) => `w${writer} said ${round}`),
          ).flat();
          const remembered = Array.from({ length: WRITERS }, (_, writer) =>
            Array.from({ length: ROUNDS }, (_unused, round) => `Writer ${writer} remembers fact ${round}.`),
          ).flat();
          const lost =
            expectedNames.filter((name) => !names.includes(name)).length +
            said.filter((text) => !shared?.observations.includes(text)).length +
            (WRITERS * ROUNDS - graph.relations.length) +
            remembered.filter((text) => !facts?.includes(text)).length;
          console.log(
            `[mcp-processes] ${kind.name}: ${WRITERS} processes, ${writes} writes in ${Math.round(elapsed)} ms, lost ${lost}`,
          );
          expect(created.reduce((sum, count) => sum + count, 0)).toBe(1);
          expect(names).toEqual(expectedNames);
          expect([...(shared?.observations ?? [])].sort()).toEqual([...said].sort());
          for (const entity of graph.entities.filter((each) => each.name !== 'shared'))
            expect(entity.observations).toEqual([`${entity.name} first`]);
          expect(graph.relations).toHaveLength(WRITERS * ROUNDS);
          expect(new Set(graph.relations.map((relation) => relation.from)).size).toBe(WRITERS * ROUNDS);
          expect([...(facts ?? [])].sort()).toEqual([...remembered].sort());
          expect(lost).toBe(0);
        } finally {
          await store.close();
        }
      } finally {
        await Promise.all(sessions.map((session) => session.close()));
      }
    }, 180_000);
  },
);
