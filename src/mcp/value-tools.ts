/**
 * Scoped values (active memory): get and set a JSON value of the user, of an agent for the user,
 * of a session, or read one of the app. A model never writes the app scope (the application's
 * settings, shared by every user): `set_value` refuses it.
 * @module
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAX_KEY_CHARS, checkKey, checkValue } from '../active-memory/checks.js';
import { ForbiddenError, InvalidInputError } from '../errors.js';
import { assertValidId } from '../ids.js';
import type { ValueOwner } from '../store/session-store-types.js';
import type { McpScope } from './context.js';
import { guarded, jsonResult } from './results.js';

const key = z.string().min(1).max(MAX_KEY_CHARS).describe('The key');
const ownerArgs = {
  scope: z
    .enum(['user', 'agent', 'session', 'app'])
    .describe("Whose value: the user's, an agent's for the user, a session's, or the app's (read only)"),
  agentId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('The agent, for the agent scope (default: the server’s agent)'),
  sessionId: z.string().min(1).max(128).optional().describe('The session, for the session scope'),
};

/** The owner a call names, for `scope`'s user. */
function ownerOf(
  scope: McpScope,
  args: { scope: 'user' | 'agent' | 'session' | 'app'; agentId?: string | undefined; sessionId?: string | undefined },
): ValueOwner {
  switch (args.scope) {
    case 'user':
      return { scope: 'user', userId: scope.userId };
    case 'agent': {
      const agentId = args.agentId ?? scope.agentId;
      if (agentId === undefined)
        throw new InvalidInputError('INVALID_ARGUMENT', 'The agent scope needs an agentId (this server has no agent)');
      return { scope: 'agent', agentId, userId: scope.userId };
    }
    case 'session':
      if (args.sessionId === undefined)
        throw new InvalidInputError('INVALID_ARGUMENT', 'The session scope needs a sessionId');
      return { scope: 'session', sessionId: assertValidId(args.sessionId, 'session id') };
    case 'app':
      return { scope: 'app' };
  }
}

/** Registers get_value and set_value on `server`. */
export function registerValueTools(server: McpServer, scope: McpScope): void {
  server.registerTool(
    'get_value',
    {
      description: 'Read a stored value (JSON) of the user, an agent, a session or the app',
      inputSchema: { key, ...ownerArgs },
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const checked = checkKey(args.key);
      const value = await scope.store.values.get(ownerOf(scope, args), checked);
      return jsonResult({ key: checked, found: value !== undefined, value: value ?? null });
    }),
  );
  server.registerTool(
    'set_value',
    {
      description:
        'Store a JSON value of the user, an agent (for the user) or a session under a key; without a value, the key is deleted',
      inputSchema: {
        key,
        value: z.unknown().optional().describe('The value (any JSON); omit it to delete the key'),
        ...ownerArgs,
      },
    },
    guarded(async (args) => {
      // The app scope is the application's configuration for every user: a model does not write it.
      if (args.scope === 'app')
        throw new ForbiddenError('set_value: the app scope is written by the application, not over MCP');
      const checked = checkKey(args.key);
      const value = args.value === undefined ? undefined : checkValue(checked, args.value);
      const owner = ownerOf(scope, args);
      await scope.store.values.set(owner, Object.fromEntries([[checked, value]]));
      return jsonResult({ key: checked, deleted: value === undefined });
    }),
  );
}
