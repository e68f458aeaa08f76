/**
 * `createMcpServer`: chatstate's MCP server for one scope (a store and a user) — the reference
 * memory server's knowledge graph tools, chatstate's memory, value and history tools, and sessions
 * as resources. The transport is the caller's: stdio (`serveStdio`) or Streamable HTTP
 * (`handleMcpRequest`, mounted at `/mcp` by `chatstate serve`).
 * @module
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpScope } from './context.js';
import { registerGraphTools } from './graph-tools.js';
import { registerMemoryTools } from './memory-tools.js';
import { registerSessionResources } from './session-resources.js';
import { registerSessionTools } from './session-tools.js';
import { registerValueTools } from './value-tools.js';

export type { McpScope } from './context.js';

/** What the server tells a client about itself when it connects. */
const INSTRUCTIONS =
  'Durable memory of one user, kept by chatstate. The knowledge graph tools (create_entities, add_observations, search_nodes, read_graph, ...) keep entities, relations and observations; remember and recall keep and find facts in words; the working memory is one JSON document read with read_working_memory and changed with patch_working_memory; list_sessions and read_messages page through past conversations, which are also resources (chatstate://sessions/{id}).';

let version: string | undefined;

/** chatstate's version, from its package.json (read once). */
function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return version;
}

/** A new MCP server for `scope`, with every tool and resource registered, not yet connected. */
export function createMcpServer(scope: McpScope): McpServer {
  const server = new McpServer(
    { name: 'chatstate', version: packageVersion() },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  registerGraphTools(server, scope);
  registerMemoryTools(server, scope);
  registerValueTools(server, scope);
  registerSessionTools(server, scope);
  registerSessionResources(server, scope);
  return server;
}
