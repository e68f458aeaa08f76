/**
 * The shapes of the Claude Agent SDK's `SessionStore` contract (alpha), declared here by structure:
 * the SDK is an optional peer under its own licence, so chatstate's declarations never import it.
 * A `ChatstateSessionStore` is assignable to the SDK's `SessionStore` as these shapes match it.
 * @module
 */

/** Where a transcript lives: a project, a session, and for a subagent's transcript its subpath. */
export interface ClaudeSessionKey {
  /** The caller's scope (the SDK's default: the sanitized working directory). */
  readonly projectKey: string;
  readonly sessionId: string;
  /** Absent for the main transcript; e.g. `subagents/agent-<id>` for a subagent's. Never empty. */
  readonly subpath?: string;
}

/** One line of a transcript: a JSON object with a string `type`, mostly a `uuid` and a `timestamp`. */
export interface ClaudeSessionEntry {
  type: string;
  uuid?: string;
  timestamp?: string;
  [key: string]: unknown;
}

/** A session's summary sidecar, as `listSessionSummaries` returns it (`data` belongs to the SDK). */
export interface ClaudeSessionSummary {
  sessionId: string;
  /** When the sidecar was last written (epoch milliseconds, the store's clock, as `listSessions`' `mtime`). */
  mtime: number;
  data: Record<string, unknown>;
}

/** A row of `listSessions`. */
export interface ClaudeSessionListing {
  sessionId: string;
  /** When the main transcript was last appended to (epoch milliseconds, the store's clock). */
  mtime: number;
}

/** The SDK's `foldSessionSummary`, by shape. */
export type FoldSessionSummary = (
  previous: ClaudeSessionSummary | undefined,
  key: ClaudeSessionKey,
  entries: ClaudeSessionEntry[],
  options?: { mtime?: number },
) => ClaudeSessionSummary;
