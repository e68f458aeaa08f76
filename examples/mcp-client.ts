/**
 * `npx tsx examples/mcp-client.ts [STORE]`: an MCP client (the MCP SDK's own `Client`) talking to
 * `chatstate mcp` over stdio, as Claude Desktop or an IDE would. It keeps a small knowledge graph
 * with the reference memory server's tools, remembers and recalls a fact, and closes; run it twice
 * on the same store and the second run finds what the first one kept. STORE defaults to a SQLite
 * file in a temporary directory.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const store = process.argv[2] ?? `sqlite:${join(mkdtempSync(join(tmpdir(), 'chatstate-mcp-')), 'memory.db')}`;
const root = fileURLToPath(new URL('../', import.meta.url));

// An installed chatstate is started as `npx chatstate mcp ...`; here the CLI runs from the sources.
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['--import', 'tsx', join(root, 'src', 'cli', 'bin.ts'), 'mcp', '--store', store, '--user', 'alice', '--quiet'],
  cwd: root,
});
const client = new Client({ name: 'chatstate-example', version: '1.0.0' });
await client.connect(transport);

/** Calls a tool and returns its structured answer (throws on a tool error). */
async function call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError === true) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent ?? {};
}

const created = await call('create_entities', {
  entities: [
    { name: 'Alice', entityType: 'person', observations: ['prefers window seats'] },
    { name: 'Porto', entityType: 'city', observations: [] },
  ],
});
await call('create_relations', { relations: [{ from: 'Alice', to: 'Porto', relationType: 'lives_in' }] });
await call('add_observations', { observations: [{ entityName: 'Alice', contents: ['travels in May'] }] });
const found = (await call('search_nodes', { query: 'window' })) as { entities: Array<{ name: string }> };
await call('remember', { text: 'Alice is allergic to peanuts.' });
const recalled = (await call('recall', { query: 'what is Alice allergic to' })) as { hits: Array<{ text: string }> };
const graph = (await call('read_graph')) as { entities: unknown[]; relations: unknown[] };

console.log(`store: ${store}`);
console.log(`created ${(created.entities as unknown[]).length} entities (none on a second run: they exist)`);
console.log(`search "window": ${found.entities.map((entity) => entity.name).join(', ')}`);
console.log(`recall: ${recalled.hits[0]?.text ?? '(nothing)'}`);
console.log(`graph: ${graph.entities.length} entities, ${graph.relations.length} relation`);
await client.close();
