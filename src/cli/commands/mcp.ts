/**
 * `chatstate mcp`: chatstate's MCP server over stdio, for an MCP client that starts it (Claude
 * Desktop, Claude Code, an IDE): the reference memory server's knowledge graph tools backed by the
 * store, with recall, facts, working memory, values and the sessions. Over HTTP the same server is
 * `chatstate serve`'s `/mcp` route, with its API keys and tenants.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { assertOwnerId } from '../../ids.js';
import type * as McpStdio from '../../mcp/stdio.js';
import { action, defineCommand, examples } from '../command.js';

interface McpOptions {
  readonly user?: string;
  readonly agent?: string;
}

/** The user whose memory the server keeps when neither --user nor CHATSTATE_USER names one. */
export const DEFAULT_MCP_USER = 'default';

/** The stdio server module, or `MISSING_DEPENDENCY` naming the package it needs. */
async function loadStdio(): Promise<typeof McpStdio> {
  try {
    return await import('../../mcp/stdio.js');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND')
      throw new InvalidInputError(
        'MISSING_DEPENDENCY',
        'chatstate mcp needs the MCP SDK: npm install @modelcontextprotocol/sdk',
        { cause: error, details: { packages: ['@modelcontextprotocol/sdk'] } },
      );
    throw error;
  }
}

/** An AbortSignal aborted at the first SIGINT or SIGTERM, and the function that stops listening. */
function stopSignals(): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** `mcp`. */
export const mcp = defineCommand('mcp', (command) =>
  command
    .summary('serve memory to an MCP client over stdio')
    .description(
      "An MCP server on stdin and stdout, keeping one user's memory in the store: the tools of the\n" +
        'reference memory server (create_entities, create_relations, add_observations, delete_entities,\n' +
        'delete_observations, delete_relations, read_graph, search_nodes, open_nodes), recall, remember and\n' +
        'forget, read_working_memory and patch_working_memory, get_value and set_value, list_sessions and\n' +
        'read_messages; sessions are resources (chatstate://sessions/{id}). Any number of these servers may\n' +
        'share a store: concurrent writes are never lost. Nothing but the protocol is written to stdout.\n\n' +
        'Over HTTP, "chatstate serve" answers MCP at /mcp, with its API keys and tenants.',
    )
    .option('--user <id>', `whose memory (default: $CHATSTATE_USER, then "${DEFAULT_MCP_USER}")`)
    .option('--agent <id>', 'the agent of the agent value scope, when a call names none')
    .addHelpText(
      'after',
      examples(
        'mcp --store sqlite:./memory.db --user alice',
        'mcp --store postgres://db/chat --user alice --agent desktop',
      ),
    )
    .action(
      action<McpOptions>(async (context, _args, options) => {
        const fromEnv = context.io.env.CHATSTATE_USER;
        const userId = assertOwnerId(
          options.user ?? (fromEnv === undefined || fromEnv === '' ? DEFAULT_MCP_USER : fromEnv),
          'userId',
        );
        const agentId = options.agent === undefined ? undefined : assertOwnerId(options.agent, 'agentId');
        const stdio = await loadStdio();
        // A server writes: a new store is started (and said so on stderr) rather than refused.
        const store = await context.store(context.storeUrl, { create: true });
        context.output.note(`chatstate mcp: ${store.name}, user ${userId}, on stdio`);
        const stop = stopSignals();
        try {
          await stdio.serveStdio(
            { store, userId, by: 'mcp', ...(agentId === undefined ? {} : { agentId }) },
            { stdin: context.io.stdin, stdout: context.io.stdout, signal: stop.signal },
          );
        } finally {
          stop.release();
        }
      }),
    ),
);
