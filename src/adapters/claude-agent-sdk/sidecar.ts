/**
 * A main transcript's sidecar: a chatstate session without messages (`<main>.s`) whose metadata
 * holds the session's key, the SDK's summary folded over the transcript up to a sequence number,
 * and the subpaths of its subagent transcripts by encoded part. Every change is a
 * compare-and-replace on the sidecar's version, retried on `CONFLICT`, so writers in any number of
 * processes never lose one another's update.
 * @module
 */
import { ChatstateError, ConflictError, InvalidInputError } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { Session } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { SESSION_KINDS } from '../../store/session-kind.js';
import { ENTRY_KEY } from './entries.js';
import type { ClaudeSessionKey, FoldSessionSummary } from './types.js';

/** What a sidecar's metadata holds under `claudeAgentSdk`. */
export interface SidecarState {
  readonly key?: { readonly projectKey: string; readonly sessionId: string };
  /** The SDK's summary data, verbatim; absent before the first fold. */
  readonly summary?: Record<string, unknown>;
  /** The transcript's last sequence number the summary has folded. */
  readonly foldedSeq: number;
  /** Subpaths of the session's subagent transcripts, by their encoded id part. */
  readonly subpaths: Readonly<Record<string, string>>;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A JSON copy (the SDK's data and what is stored never share objects). */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The state `sidecar` holds (an empty one when there is none or it holds something else). */
export function sidecarState(sidecar: Session | undefined): SidecarState {
  const state = record(sidecar?.metadata[ENTRY_KEY]) ?? {};
  const key = record(state.key);
  const foldedSeq = typeof state.foldedSeq === 'number' && Number.isSafeInteger(state.foldedSeq) ? state.foldedSeq : 0;
  const subpaths = Object.fromEntries(
    Object.entries(record(state.subpaths) ?? {}).filter(
      (pair): pair is [string, string] => typeof pair[1] === 'string',
    ),
  );
  const summary = record(state.summary);
  return {
    ...(key !== undefined && typeof key.projectKey === 'string' && typeof key.sessionId === 'string'
      ? { key: { projectKey: key.projectKey, sessionId: key.sessionId } }
      : {}),
    ...(summary === undefined ? {} : { summary: jsonCopy(summary) }),
    foldedSeq,
    subpaths,
  };
}

/** How the adapter writes sidecars. */
export interface SidecarWriter {
  readonly store: SessionStore;
  readonly ttlMs?: number;
  readonly userId?: string;
  readonly agentId?: string;
  readonly maxAttempts: number;
}

/**
 * Reads the sidecar, lets `change` decide its next state (`undefined`: nothing to write), and
 * writes it if its version is still the one read; again on `CONFLICT`, up to `maxAttempts`.
 * `keepUpdatedAt` leaves the sidecar's `updatedAt` (the summary's `mtime`) as it was.
 */
export async function updateSidecar(
  writer: SidecarWriter,
  id: string,
  key: ClaudeSessionKey,
  change: (state: SidecarState) => Promise<SidecarState | undefined>,
  options: { readonly keepUpdatedAt?: boolean } = {},
): Promise<void> {
  const { store } = writer;
  for (let attempt = 1; ; attempt += 1) {
    const stored = await store.get(id);
    const next = await change(sidecarState(stored));
    if (next === undefined) return;
    const state: JsonObject = {
      key: { projectKey: key.projectKey, sessionId: key.sessionId },
      foldedSeq: next.foldedSeq,
      subpaths: next.subpaths,
      ...(next.summary === undefined ? {} : { summary: jsonCopy(next.summary) as JsonValue }),
    };
    const base =
      stored ??
      Session.create({
        id,
        ...(writer.userId === undefined ? {} : { userId: writer.userId }),
        ...(writer.agentId === undefined ? {} : { agentId: writer.agentId }),
        metadata: {
          chatstate: SESSION_KINDS.claudeSummary,
          title: `Claude Agent SDK session ${key.sessionId.slice(0, 80)} (summary)`,
        },
      });
    // Metadata replaced wholesale under our key: a summary field the SDK dropped is dropped here too.
    const session = base.withMetadata({ [ENTRY_KEY]: state });
    try {
      await store.save(session, {
        expectedVersion: stored?.version ?? 0,
        ...(writer.ttlMs === undefined ? {} : { ttlMs: writer.ttlMs }),
        ...(options.keepUpdatedAt === true && stored !== undefined ? { keepUpdatedAt: true } : {}),
      });
      return;
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
      if (attempt >= writer.maxAttempts)
        throw new ConflictError(
          `claude-agent-sdk: the sidecar of session ${JSON.stringify(key.sessionId.slice(0, 80))} kept changing (${attempt} attempts)`,
          { cause: error, details: { sidecar: id, attempts: attempt } },
        );
    }
  }
}

let fold: Promise<FoldSessionSummary> | undefined;

/** The SDK's own `foldSessionSummary` (its summary data is the SDK's to define), loaded once. */
export function loadFold(): Promise<FoldSessionSummary> {
  fold ??= (async () => {
    let module: { foldSessionSummary?: unknown };
    try {
      module = (await import('@anthropic-ai/claude-agent-sdk')) as { foldSessionSummary?: unknown };
    } catch (error) {
      fold = undefined;
      throw new InvalidInputError(
        'MISSING_DEPENDENCY',
        'claude-agent-sdk: summaries need the `@anthropic-ai/claude-agent-sdk` package: npm install @anthropic-ai/claude-agent-sdk',
        { cause: error, details: { package: '@anthropic-ai/claude-agent-sdk' } },
      );
    }
    if (typeof module.foldSessionSummary !== 'function') {
      fold = undefined;
      throw new InvalidInputError(
        'MISSING_DEPENDENCY',
        'claude-agent-sdk: the installed `@anthropic-ai/claude-agent-sdk` has no foldSessionSummary (it needs a version with SessionStore support)',
        { details: { package: '@anthropic-ai/claude-agent-sdk' } },
      );
    }
    return module.foldSessionSummary as FoldSessionSummary;
  })();
  return fold;
}
