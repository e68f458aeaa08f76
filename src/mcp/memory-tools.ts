/**
 * chatstate's own memory tools: `recall` over the user's sessions and knowledge, `remember` and
 * `forget` facts, and the user's working memory (read, and change with a JSON merge patch) — what
 * an agent of chatstate's runtime has, for any MCP client.
 * @module
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAX_QUERY_CHARS, MAX_RECALL_K, MAX_VALUE_BYTES } from '../active-memory/checks.js';
import { knowledgeSessionId } from '../active-memory/knowledge.js';
import { rememberedFact } from '../active-memory/knowledge-lifecycle.js';
import { createSessionHandle } from '../active-memory/session-handle.js';
import { WorkingMemory } from '../active-memory/working-memory.js';
import type { JsonObject } from '../message/schema.js';
import type { McpScope } from './context.js';
import { guarded, jsonResult, textResult } from './results.js';

const agentId = z
  .string()
  .min(1)
  .max(256)
  .optional()
  .describe("An agent's own working memory of the user (default: the user's shared one)");

/** Registers recall, remember, forget and the working memory tools on `server`. */
export function registerMemoryTools(server: McpServer, scope: McpScope): void {
  const { store, userId } = scope;
  // A handle on the user's knowledge session: recall covers all of the user's sessions from any of them.
  const handle = createSessionHandle({ store, sessionId: knowledgeSessionId(userId), userId });

  server.registerTool(
    'recall',
    {
      description:
        "The messages of the user's conversations and the facts remembered that best match a query, best first",
      inputSchema: {
        query: z.string().min(1).max(MAX_QUERY_CHARS).describe('What to look for, in words'),
        k: z.number().int().min(1).max(MAX_RECALL_K).optional().describe('Most results (default 5)'),
        threshold: z.number().min(0).max(1).optional().describe('Leave out results scoring below this (0 to 1)'),
        asOf: z.string().min(1).max(64).optional().describe('Answer as of this time (ISO-8601)'),
        includeSuperseded: z.boolean().optional().describe('Also return facts a later fact corrected'),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ query, k, threshold, asOf, includeSuperseded }) => {
      const hits = await handle.recall(query, {
        ...(k === undefined ? {} : { k }),
        ...(threshold === undefined ? {} : { threshold }),
        ...(asOf === undefined ? {} : { asOf }),
        ...(includeSuperseded === undefined ? {} : { includeSuperseded }),
      });
      return jsonResult({ hits });
    }),
  );
  server.registerTool(
    'remember',
    {
      description:
        'Remember a fact about the user (one self-contained sentence); recall finds it later. With supersedes, it corrects an older fact',
      inputSchema: {
        text: z.string().min(1).max(MAX_VALUE_BYTES).describe('The fact'),
        supersedes: z.string().min(1).max(256).optional().describe('The id of the fact this one corrects'),
        validFrom: z.string().min(1).max(64).optional().describe('From when the fact holds (ISO-8601; default now)'),
        tags: z.array(z.string().min(1).max(64)).max(20).optional().describe('Labels kept with the fact'),
      },
    },
    guarded(async ({ text, supersedes, validFrom, tags }) => {
      const hit = await handle.remember(text, {
        ...(supersedes === undefined ? {} : { supersedes }),
        ...(validFrom === undefined ? {} : { validFrom }),
        ...(tags === undefined ? {} : { tags }),
      });
      scope.changed?.(hit.sessionId);
      return jsonResult({ ...rememberedFact(hit) });
    }),
  );
  server.registerTool(
    'forget',
    {
      description: "Forget a fact: its text is deleted from the user's knowledge, not hidden",
      inputSchema: { factId: z.string().min(1).max(256).describe("The id remember gave (a recall hit's messageId)") },
      annotations: { destructiveHint: true },
    },
    guarded(async ({ factId }) => {
      await handle.forget(factId);
      scope.changed?.(handle.sessionId);
      return textResult(`Forgot ${factId}`);
    }),
  );

  const memoryOf = (agent: string | undefined): WorkingMemory =>
    new WorkingMemory({ store, userId, ...(agent === undefined ? {} : { agentId: agent }) });
  server.registerTool(
    'read_working_memory',
    {
      description:
        "The user's working memory: one JSON document kept across conversations (version 0 and {} before any)",
      inputSchema: { agentId },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ agentId: agent }) => jsonResult({ ...(await memoryOf(agent).read()) })),
  );
  server.registerTool(
    'patch_working_memory',
    {
      description:
        "Change the user's working memory with a JSON merge patch (RFC 7396: a key set to null is removed); concurrent patches are all kept",
      inputSchema: {
        patch: z.record(z.string(), z.unknown()).describe('The merge patch: an object'),
        agentId,
        expectedVersion: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Apply only to this version (else CONFLICT): for a patch of what was read'),
      },
    },
    guarded(async ({ patch, agentId: agent, expectedVersion }) => {
      const memory = memoryOf(agent);
      const next = await memory.update(patch as JsonObject, {
        by: scope.by,
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
      });
      scope.changed?.(memory.sessionId);
      return jsonResult({ ...next });
    }),
  );
}
