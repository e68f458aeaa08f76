/**
 * `chatstate/openai-agents`: a durable OpenAI Agents JS `Session` over any chatstate store.
 *
 * ```ts
 * const session = chatstateSession({ store: fileStore('./.chatstate'), sessionId: 'support-42' });
 * await run(agent, 'Hello', { session });
 * ```
 *
 * The history is one chatstate session: items map to messages (tool calls paired with their
 * results) and back deep-equal, so the CLI, the server and the web browser show the same thread.
 * `@openai/agents-core` (an optional peer dependency) is loaded only by this subpath.
 * @module
 */
export { ChatstateSession, chatstateSession } from './session.js';
export type { ChatstateSessionOptions } from './session.js';
export type { SessionCompactionOptions } from './compaction.js';
export { itemsToMessages, messagesToItems } from '../../interchange/openai-agents/convert.js';
