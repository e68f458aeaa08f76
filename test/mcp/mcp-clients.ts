/**
 * MCP clients for the tests: the SDK's own `Client`, over stdio to a `chatstate mcp` process
 * (src/cli/bin.ts bundled once per test process, started without tsx) or over Streamable HTTP to a
 * server on loopback; and the reading of a tool result.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { bundledScript } from '../support/bundled-script.js';

const BIN = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));

/** A connected client and what its server process wrote on stderr. */
export interface StdioSession {
  readonly client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** This process's environment without the variables that would steer the command (CHATSTATE_*). */
function childEnv(extra: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !key.startsWith('CHATSTATE_')) env[key] = value;
  return { ...env, ...extra };
}

/** `chatstate mcp ...args` as a process of its own, with the SDK's client connected to it over stdio. */
export async function stdioClient(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<StdioSession> {
  const bundle = await bundledScript(BIN);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bundle, 'mcp', ...args],
    env: childEnv(env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'chatstate-test', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The SDK's client connected to `url` (a server's `/mcp`) with `key`. */
export async function httpClient(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'chatstate-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** Calls tool `name`; its structured content (the test fails on a tool error). */
export async function call<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return (result.structuredContent ?? {}) as T;
}

/** Calls tool `name` expecting a tool error; its text (the test fails when the call succeeds). */
export async function callError(client: Client, name: string, args: unknown): Promise<string> {
  const result = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
  if (result.isError !== true) throw new Error(`${name} succeeded: ${JSON.stringify(result)}`);
  const [first] = result.content;
  return first?.type === 'text' ? first.text : JSON.stringify(result.content);
}
