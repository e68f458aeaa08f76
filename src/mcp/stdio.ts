/**
 * chatstate's MCP server over stdio (what `chatstate mcp` runs): JSON-RPC on stdin and stdout,
 * until the client closes stdin or the process is told to stop.
 * @module
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { McpScope } from './context.js';
import { createMcpServer } from './server.js';

/** Options of `serveStdio`. */
export interface StdioOptions {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Aborting it closes the server (a signal to the process). */
  readonly signal?: AbortSignal;
}

/** Serves `scope` over stdio; resolves when the connection ends (stdin closed, or `signal` aborted). */
export async function serveStdio(scope: McpScope, options: StdioOptions = {}): Promise<void> {
  const server = createMcpServer(scope);
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const stdin = options.stdin ?? process.stdin;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // The transport does not notice the end of its input: the client hung up.
    stdin.once('end', () => void server.close());
    stdin.once('close', () => void server.close());
    options.signal?.addEventListener('abort', () => void server.close(), { once: true });
  });
  await server.connect(transport);
  await closed;
}
