/**
 * chatstate's MCP server over Streamable HTTP, stateless: each request gets a server of its own
 * for the scope its credentials give (the caller — `chatstate serve`'s `/mcp` route — has
 * authenticated it and chosen the tenant's view), so any instance behind a load balancer answers
 * any request, and nothing is kept between requests. Answers are JSON, not event streams.
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpScope } from './context.js';
import { createMcpServer } from './server.js';

/** Options of `handleMcpRequest`. */
export interface McpRequestOptions {
  /** Largest request body, in bytes. */
  readonly maxBodyBytes?: number;
  /** The body, already read and parsed as JSON by the caller (the request's own is then not read). */
  readonly parsedBody?: unknown;
}

/** The answer to one MCP request (a POST of JSON-RPC messages) for `scope`. */
export async function handleMcpRequest(
  request: Request,
  scope: McpScope,
  options: McpRequestOptions = {},
): Promise<Response> {
  const server = createMcpServer(scope);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    ...(options.maxBodyBytes === undefined ? {} : { maxRequestBodySize: options.maxBodyBytes }),
  });
  await server.connect(transport);
  try {
    // With JSON answers the response is complete when it resolves: the server can close after it.
    return await transport.handleRequest(
      request,
      options.parsedBody === undefined ? {} : { parsedBody: options.parsedBody },
    );
  } finally {
    await server.close();
  }
}
