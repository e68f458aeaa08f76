/**
 * What every tool and resource of chatstate's MCP server works with: the store (a tenant's view
 * over HTTP, the whole store over stdio), the user whose memory it is, and who is writing.
 * @module
 */
import type { SessionStore } from '../store/session-store-types.js';

/** The scope one MCP server acts in. */
export interface McpScope {
  /** The store the tools read and write (over HTTP: the key's tenant view, as for the REST API). */
  readonly store: SessionStore;
  /** The user whose graph, knowledge, values and working memory the tools use. */
  readonly userId: string;
  /** The agent of the `agent` value scope and of an agent's working memory, when none is named in a call. */
  readonly agentId?: string;
  /** Who writes, kept with working memory versions (`mcp`, or `key:ID` over HTTP). */
  readonly by: string;
  /** Told the session a tool changed (the HTTP server wakes that session's event streams). */
  readonly changed?: (sessionId: string) => void;
}
