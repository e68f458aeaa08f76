/**
 * `chatstate mcp` over stdio, driven by the MCP SDK's own `Client` from this process: the reference
 * memory server's tools with its semantics, chatstate's own tools, sessions as resources, a graph
 * brought over with `chatstate import --from mcp-memory`, and bad arguments answered with tool
 * errors while the server goes on. A SQLite store the test also opens itself.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { openStore } from '../../src/stores/open-store.js';
import { runCli } from '../cli/cli-process.js';
import { call, callError, stdioClient, type StdioSession } from './mcp-clients.js';

let dir = '';
let url = '';
let store: SessionStore;
let mcp: StdioSession;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-mcp-stdio-'));
  url = `sqlite:${join(dir, 'memory.db')}`;
  store = await openStore(url);
  const messages = Array.from({ length: 5 }, (_, index) => Message.user(`turn ${index} about Lisbon trams`));
  await store.save(Session.create({ id: 'trip', userId: 'alice', messages }));
  mcp = await stdioClient(['--store', url, '--user', 'alice', '--agent', 'desk']);
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('chatstate mcp over stdio', () => {
  it('lists the reference tools and its own, and says it on stderr only', async () => {
    const names = (await mcp.client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(
      [
        'add_observations',
        'create_entities',
        'create_relations',
        'delete_entities',
        'delete_observations',
        'delete_relations',
        'forget',
        'get_value',
        'list_sessions',
        'open_nodes',
        'patch_working_memory',
        'read_graph',
        'read_messages',
        'read_working_memory',
        'recall',
        'remember',
        'search_nodes',
        'set_value',
      ].sort(),
    );
    expect(mcp.client.getServerVersion()?.name).toBe('chatstate');
    expect(mcp.stderr()).toContain('user alice, on stdio');
  });

  it('keeps the knowledge graph as the reference server does', async () => {
    const { client } = mcp;
    const made = await call<{ entities: Array<{ name: string }> }>(client, 'create_entities', {
      entities: [
        { name: 'Alice', entityType: 'person', observations: ['likes tea', 'likes tea'] },
        { name: 'Acme', entityType: 'organization', observations: [] },
        { name: 'Alice', entityType: 'robot', observations: [] },
      ],
    });
    expect(made.entities.map((entity) => entity.name)).toEqual(['Alice', 'Acme']);
    expect(
      (await call<{ entities: unknown[] }>(client, 'create_entities', { entities: [made.entities[0]!] })).entities,
    ).toEqual([]);
    // An unknown entity refuses the whole call: nothing of it is added.
    expect(
      await callError(client, 'add_observations', {
        observations: [
          { entityName: 'Alice', contents: ['plays chess'] },
          { entityName: 'Nobody', contents: ['x'] },
        ],
      }),
    ).toBe('NOT_FOUND: Entity with name "Nobody" not found');
    const added = await call<{ results: unknown[] }>(client, 'add_observations', {
      observations: [{ entityName: 'Alice', contents: ['likes tea', 'plays chess'] }],
    });
    expect(added.results).toEqual([{ entityName: 'Alice', addedObservations: ['plays chess'] }]);
    const related = await call<{ relations: unknown[] }>(client, 'create_relations', {
      relations: [
        { from: 'Alice', to: 'Acme', relationType: 'works_at' },
        { from: 'Alice', to: 'Acme', relationType: 'works_at' },
      ],
    });
    expect(related.relations).toHaveLength(1);
    expect(await call(client, 'search_nodes', { query: 'CHESS' })).toEqual({
      entities: [{ name: 'Alice', entityType: 'person', observations: ['likes tea', 'plays chess'] }],
      relations: [],
    });
    expect(await call(client, 'open_nodes', { names: ['Alice', 'Acme', 'Ghost'] })).toMatchObject({
      entities: [{ name: 'Alice' }, { name: 'Acme' }],
      relations: [{ from: 'Alice', to: 'Acme', relationType: 'works_at' }],
    });
    await call(client, 'delete_observations', { deletions: [{ entityName: 'Alice', observations: ['likes tea'] }] });
    await call(client, 'delete_entities', { entityNames: ['Acme'] });
    expect(await call(client, 'read_graph')).toEqual({
      entities: [{ name: 'Alice', entityType: 'person', observations: ['plays chess'] }],
      relations: [],
    });
    // A removal rewrites the graph: the deleted observation's text is no longer in the store.
    const raw = await store.list({ limit: 100, kinds: 'all' });
    const graphRow = raw.find((row) => row.id.startsWith('memory-graph-'));
    expect(graphRow).toMatchObject({ userId: 'alice' });
    const stored = (await store.get(graphRow!.id))?.messages ?? [];
    const texts = stored.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.map((part) => (part.type === 'file' ? Buffer.from(part.data ?? '', 'base64').toString() : ''))
        : [],
    );
    expect(texts.join('\n')).toContain('plays chess');
    expect(texts.join('\n')).not.toContain('likes tea');
  });

  it('answers bad arguments with tool errors, and goes on', async () => {
    const { client } = mcp;
    expect(await callError(client, 'create_entities', { entities: 'Alice' })).toMatch(/Input validation error/);
    expect(
      await callError(client, 'create_entities', { entities: [{ name: '', entityType: 't', observations: [] }] }),
    ).toBe('INVALID_ARGUMENT: entities[0].name: must not be empty');
    expect(await callError(client, 'open_nodes', {})).toMatch(/Input validation error/);
    expect(await callError(client, 'recall', { query: 'x', k: 0 })).toMatch(/Input validation error/);
    expect(await callError(client, 'no_such_tool', {})).toMatch(/not found/);
    expect(await callError(client, 'read_messages', { sessionId: '../etc' })).toMatch(/^INVALID_ID/);
    expect(await callError(client, 'set_value', { key: 'plan', value: 'pro', scope: 'app' })).toMatch(/^FORBIDDEN/);
    expect(await callError(client, 'patch_working_memory', { patch: { a: 1 }, expectedVersion: 7 })).toMatch(
      /^CONFLICT/,
    );
    // Still serving.
    expect((await call<{ entities: unknown[] }>(client, 'read_graph')).entities).toHaveLength(1);
  });

  it('remembers, recalls and forgets facts; keeps working memory and values', async () => {
    const { client } = mcp;
    const fact = await call<{ id: string }>(client, 'remember', { text: 'Alice lives in Porto.' });
    const hits = await call<{ hits: Array<{ messageId: string; text: string }> }>(client, 'recall', {
      query: 'where does Alice live',
    });
    expect(hits.hits[0]).toMatchObject({ messageId: fact.id, text: 'Alice lives in Porto.' });
    await call(client, 'forget', { factId: fact.id });
    const after = await call<{ hits: Array<{ messageId: string }> }>(client, 'recall', {
      query: 'where does Alice live',
    });
    expect(after.hits.map((hit) => hit.messageId)).not.toContain(fact.id);

    expect(await call(client, 'read_working_memory')).toEqual({ version: 0, document: {} });
    await call(client, 'patch_working_memory', { patch: { city: 'Porto', pets: ['cat'] } });
    expect(await call(client, 'patch_working_memory', { patch: { pets: null } })).toMatchObject({
      version: 3,
      document: { city: 'Porto' },
      by: 'mcp',
    });

    await call(client, 'set_value', { key: 'tone', value: { formal: false }, scope: 'user' });
    await call(client, 'set_value', { key: 'seen', value: 3, scope: 'agent' });
    await call(client, 'set_value', { key: 'note', value: 'window seat', scope: 'session', sessionId: 'trip' });
    expect(await call(client, 'get_value', { key: 'tone', scope: 'user' })).toEqual({
      key: 'tone',
      found: true,
      value: { formal: false },
    });
    expect(await store.values.get({ scope: 'agent', agentId: 'desk', userId: 'alice' }, 'seen')).toBe(3);
    expect(await store.values.get({ scope: 'session', sessionId: 'trip' }, 'note')).toBe('window seat');
    await call(client, 'set_value', { key: 'tone', scope: 'user' });
    expect(await call(client, 'get_value', { key: 'tone', scope: 'user' })).toEqual({
      key: 'tone',
      found: false,
      value: null,
    });
  });

  it('pages through sessions and their messages; sessions are resources', async () => {
    const { client } = mcp;
    const listed = await call<{ sessions: Array<{ id: string }> }>(client, 'list_sessions');
    // chatstate's own sessions (graph, knowledge, working memory) only when asked.
    expect(listed.sessions.map((row) => row.id)).toEqual(['trip']);
    const all = await call<{ sessions: Array<{ id: string }> }>(client, 'list_sessions', { includeInternal: true });
    expect(all.sessions.length).toBeGreaterThan(1);
    const first = await call<{ sessions: Array<{ id: string }>; nextCursor?: string }>(client, 'list_sessions', {
      includeInternal: true,
      limit: 1,
    });
    const second = await call<{ sessions: Array<{ id: string }> }>(client, 'list_sessions', {
      includeInternal: true,
      limit: 1,
      cursor: first.nextCursor,
    });
    expect(second.sessions[0]?.id).toBe(all.sessions[1]?.id);

    const page = await call<{ messages: Array<{ seq: number; content: string }>; nextBefore?: number }>(
      client,
      'read_messages',
      { sessionId: 'trip', limit: 2 },
    );
    expect(page.messages.map((message) => message.content)).toEqual([
      'turn 3 about Lisbon trams',
      'turn 4 about Lisbon trams',
    ]);
    const older = await call<{ messages: Array<{ content: string }> }>(client, 'read_messages', {
      sessionId: 'trip',
      limit: 10,
      before: page.nextBefore,
    });
    expect(older.messages).toHaveLength(3);
    expect(await callError(client, 'read_messages', { sessionId: 'nope' })).toBe('NOT_FOUND: No session nope');

    const resources = await client.listResources();
    expect(resources.resources.map((resource) => resource.uri)).toEqual(['chatstate://sessions/trip']);
    const read = await client.readResource({ uri: 'chatstate://sessions/trip' });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe('application/json');
    expect((JSON.parse(content.text) as { messages: unknown[] }).messages).toHaveLength(5);
    await expect(client.readResource({ uri: 'chatstate://sessions/nope' })).rejects.toMatchObject({ code: -32002 });
  });

  it('reads a graph brought over with chatstate import --from mcp-memory', async () => {
    const file = join(dir, 'memory.jsonl');
    await writeFile(
      file,
      [
        { type: 'entity', name: 'Bob', entityType: 'person', observations: ['drives a tram'] },
        { type: 'entity', name: 'Alice', entityType: 'person', observations: ['plays chess', 'speaks Portuguese'] },
        { type: 'relation', from: 'Bob', to: 'Alice', relationType: 'knows' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const bad = join(dir, 'bad.jsonl');
    await writeFile(
      bad,
      `${JSON.stringify({ type: 'entity', name: 'Carol', entityType: 'person', observations: [] })}\n{oops\n`,
    );
    const refused = await runCli(['import', '--store', url, '--from', 'mcp-memory', '--user', 'alice', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${bad}:2: INVALID_ARGUMENT: not JSON`);
    expect(refused.stdout).toContain('nothing imported: 1 of 2 lines not readable');
    const imported = await runCli([
      'import',
      '--store',
      url,
      '--from',
      'mcp-memory',
      '--user',
      'alice',
      '--json',
      file,
    ]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({
      userId: 'alice',
      imported: true,
      entities: 1,
      observations: 2,
      relations: 1,
      problems: [],
    });
    expect(await call(mcp.client, 'read_graph')).toEqual({
      entities: [
        { name: 'Alice', entityType: 'person', observations: ['plays chess', 'speaks Portuguese'] },
        { name: 'Bob', entityType: 'person', observations: ['drives a tram'] },
      ],
      relations: [{ from: 'Bob', to: 'Alice', relationType: 'knows' }],
    });
    expect(
      (await call<{ entities: Array<{ name: string }> }>(mcp.client, 'search_nodes', { query: 'carol' })).entities,
    ).toEqual([]);
  });
});
