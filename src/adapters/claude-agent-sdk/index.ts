/**
 * `chatstate/claude-agent-sdk`: the Claude Agent SDK's `SessionStore` (alpha) over any chatstate
 * store, so the SDK's transcripts are durable, shared between processes and machines, expire
 * with the store's retention, and read as ordinary conversations in `chatstate show`, the server
 * and the web browser.
 *
 * ```ts
 * const sessionStore = chatstateSessionStore({ store: await sqliteStore('./chat.db'), ttlMs: 30 * 86_400_000 });
 * for await (const message of query({ prompt: 'Hello', options: { sessionStore } })) …
 * ```
 *
 * Entries come back deep-equal, idempotent by `uuid`, in the store's order; summaries are folded
 * by the SDK's own `foldSessionSummary` and written by compare-and-replace. The SDK
 * (`@anthropic-ai/claude-agent-sdk`, an optional peer dependency) is loaded only by this subpath,
 * and only when a summary is folded.
 * @module
 */
export { ChatstateSessionStore, chatstateSessionStore } from './session-store.js';
export type { ChatstateSessionStoreOptions } from './session-store.js';
export type { ClaudeSessionEntry, ClaudeSessionKey, ClaudeSessionListing, ClaudeSessionSummary } from './types.js';
