/**
 * `ChatstateSession`: an OpenAI Agents JS `Session` whose history is one chatstate session in any
 * chatstate store. Items are stored as the messages they are (see
 * `interchange/openai-agents/convert.ts`), so the same thread is a normal, provider-valid
 * conversation for the CLI, the server and the web browser.
 *
 * What each call costs: `addItems` is one atomic append (idempotent message ids, cost independent
 * of the history's length); `getItems(limit)` one bounded range read of the newest `limit`
 * messages (each holds at least one item); `popItem` a head read, a one-message read and a tail
 * replace on the version read (on a store with `replaceTail`); `clearSession`, `replaceHistoryWithCompaction`,
 * `runCompaction` and `applyHistoryTransaction` read the session and write it back in one
 * compare-and-replace on its version, retried on a concurrent change and a typed `CONFLICT` when
 * the retries run out: two processes never lose an item.
 * @module
 */
import type {
  AgentInputItem,
  OpenAIResponsesCompactionArgs,
  OpenAIResponsesCompactionAwareSession,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from '@openai/agents-core';
import { ChatstateError, ConflictError, InvalidInputError } from '../../errors.js';
import { assertValidId, newId } from '../../ids.js';
import { itemsToMessages, messagesToItems } from '../../interchange/openai-agents/convert.js';
import { canonicalJson } from '../../internal/canonical-json.js';
import { messageItems } from '../../interchange/openai-agents/items.js';
import type { Message } from '../../message/message.js';
import type { JsonObject } from '../../message/schema.js';
import { Session as ChatSession } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { estimate } from '../../tokens/estimate.js';
import { sessionCompactor, type SessionCompactionOptions } from './compaction.js';
import { CLEARED_LOG, appliedHash, noneApplied, recordApplied, transactionHash } from './operations.js';
import { snapshotItems, snapshotTransaction } from './snapshot.js';

/** Options of `chatstateSession`. */
export interface ChatstateSessionOptions {
  /** Where the history lives: any chatstate store (`fileStore`, `sqliteStore`, `openStore(url)`, …). */
  readonly store: SessionStore;
  /** The chatstate session id (letters, digits, `.`, `_`, `-`; up to 128). @default a new unique id */
  readonly sessionId?: string;
  /** Owner recorded when the session is created (for `list({ userId })` and tenant views). */
  readonly userId?: string;
  /** Agent recorded when the session is created. */
  readonly agentId?: string;
  /** Compaction run by `runCompaction` after each turn; without it `runCompaction` does nothing. */
  readonly compaction?: SessionCompactionOptions;
  /** Attempts of a read-and-replace (pop, clear, transactions, compaction) before `CONFLICT`. @default 8 */
  readonly maxAttempts?: number;
  /** History transactions remembered for idempotency (the newest ones). @default 256 */
  readonly operationLog?: number;
}

/** What one read-and-replace decides from the session it read. */
interface Rewrite<T> {
  /** The new history; `undefined` leaves the session unchanged (and writes nothing). */
  readonly messages?: readonly Message[];
  /** Metadata keys to set, when they change. */
  readonly metadata?: JsonObject;
  readonly result: T;
}

/** A new copy of JSON items (what is returned never shares anything with what is stored). */
function copied<T>(items: T): T {
  return structuredClone(items);
}

/** The messages of `messages` after its newest `count` items are removed, and those items. */
function cutItems(
  messages: readonly Message[],
  count: number,
): { kept: Message[]; removed: AgentInputItem[] } | undefined {
  let index = messages.length;
  const removed: AgentInputItem[] = [];
  while (removed.length < count) {
    index -= 1;
    const message = messages[index];
    if (message === undefined) return undefined;
    removed.unshift(...(messageItems(message) as unknown as AgentInputItem[]));
  }
  // The oldest message cut may hold items that stay: they become messages again.
  const stay = removed.splice(0, removed.length - count);
  return { kept: [...messages.slice(0, index), ...itemsToMessages(stay)], removed };
}

/** ✱ An OpenAI Agents `Session` over a chatstate store (see the module comment). */
export class ChatstateSession implements SessionHistoryTransactionAwareSession, OpenAIResponsesCompactionAwareSession {
  /** The store the history lives in. */
  readonly store: SessionStore;
  /** The chatstate session id. */
  readonly sessionId: string;
  readonly #options: ChatstateSessionOptions;
  readonly #attempts: number;
  readonly #operationLog: number;

  constructor(options: ChatstateSessionOptions) {
    if (typeof options !== 'object' || options === null || typeof options.store?.append !== 'function')
      throw new InvalidInputError('INVALID_ARGUMENT', 'openai-agents: chatstateSession needs { store }');
    this.store = options.store;
    this.sessionId = assertValidId(options.sessionId ?? newId('agents'), 'session id');
    this.#options = options;
    this.#attempts = positive(options.maxAttempts ?? 8, 'maxAttempts');
    this.#operationLog = positive(options.operationLog ?? 256, 'operationLog');
  }

  /** The chatstate session id. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The newest `limit` items (all without a limit), oldest first, read with one bounded range read. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (!Number.isInteger(limit) || Number.isNaN(limit)))
      throw new InvalidInputError('INVALID_ARGUMENT', 'openai-agents: getItems(limit) needs an integer limit');
    if (limit !== undefined && limit <= 0) return [];
    let messages: Message[];
    try {
      messages = await this.store.readMessages(this.sessionId, limit === undefined ? {} : { limit });
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) return [];
      throw error;
    }
    // Every message holds at least one item, so `limit` messages hold at least `limit` items.
    const items = messagesToItems(messages) as unknown as AgentInputItem[];
    return copied(limit === undefined ? items : items.slice(-limit));
  }

  /** Appends `items` in one atomic store append (the session is created on first use). */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const snapshot = snapshotItems(items);
    if (snapshot.length === 0) return;
    const messages = itemsToMessages(snapshot);
    try {
      await this.store.append(this.sessionId, messages);
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'NOT_FOUND')) throw error;
      await this.#create();
      await this.store.append(this.sessionId, messages);
    }
  }

  /**
   * Removes and returns the newest item: on a store with `replaceTail`, the last message is read and
   * replaced (the rest of the history untouched, at a cost independent of its length); otherwise
   * the session is rewritten.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    const replaceTail = this.store.replaceTail?.bind(this.store);
    if (replaceTail !== undefined) {
      for (let attempt = 1; ; attempt += 1) {
        // The version first: a change after it makes the replace below a CONFLICT, tried again.
        const row = await this.store.summary(this.sessionId);
        if (row === undefined || row.messageCount === 0) return undefined;
        const last = await this.store.readMessages(this.sessionId, { limit: 1 });
        const cut = cutItems(last, 1);
        const seq = last[0]?.seq;
        if (cut === undefined || seq === undefined) return undefined;
        try {
          await replaceTail(this.sessionId, { afterSeq: seq - 1, messages: cut.kept, expectedVersion: row.version });
          return copied(cut.removed[0]);
        } catch (error) {
          if (!ChatstateError.hasCode(error, 'CONFLICT') || attempt >= this.#attempts) throw error;
        }
      }
    }
    return this.#rewrite((session) => {
      const cut = cutItems(session.messages, 1);
      if (cut === undefined) return { result: undefined };
      return { messages: cut.kept, result: copied(cut.removed[0]) };
    });
  }

  /** Removes every item and the transaction log; the chatstate session (id, owner, metadata) stays. */
  async clearSession(): Promise<void> {
    await this.#rewrite((session) =>
      session.messages.length === 0 && noneApplied(session.metadata)
        ? { result: undefined }
        : { messages: [], metadata: CLEARED_LOG, result: undefined },
    );
  }

  /** Replaces the whole history with `items` (a compaction item and what follows it) in one commit. */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    const messages = itemsToMessages(snapshotItems(items));
    await this.#rewrite(() => ({ messages, result: undefined }));
  }

  /**
   * Applies an append or a suffix replacement atomically with its operation id (recorded in the
   * session's metadata in the same commit). The same id with the same transaction again does
   * nothing; with another transaction, or a suffix that does not match, it fails with `CONFLICT`
   * and changes nothing; malformed arguments are `INVALID_ARGUMENT`.
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const snapshot = snapshotTransaction(args);
    const hash = transactionHash(snapshot);
    const { transaction, operationId } = snapshot;
    const added = itemsToMessages(transaction.type === 'append_items' ? transaction.items : transaction.replacement);
    await this.#rewrite((session) => {
      const seen = appliedHash(session.metadata, operationId);
      if (seen !== undefined) {
        if (seen !== hash)
          throw new ConflictError(
            `openai-agents: session history operation ${JSON.stringify(operationId)} was already applied with a different transaction`,
            { details: { sessionId: this.sessionId, operationId } },
          );
        return { result: undefined };
      }
      const metadata = recordApplied(session.metadata, operationId, hash, this.#operationLog);
      if (transaction.type === 'append_items')
        return { messages: [...session.messages, ...added], metadata, result: undefined };
      const cut = cutItems(session.messages, transaction.expectedSuffix.length);
      if (cut === undefined || canonicalJson(cut.removed) !== canonicalJson(transaction.expectedSuffix))
        throw new ConflictError(
          'openai-agents: session history suffix no longer matches the transaction precondition',
          {
            details: { sessionId: this.sessionId, operationId },
          },
        );
      return { messages: [...cut.kept, ...added], metadata, result: undefined };
    });
  }

  /**
   * Runs the configured chatstate compactor over the stored history (when its trigger says so, or
   * always with `force`) and writes the result in one commit. No hosted model call is made, so
   * there is no usage to report: always `null`.
   */
  async runCompaction(args?: OpenAIResponsesCompactionArgs): Promise<null> {
    const options = this.#options.compaction;
    if (options === undefined) return null;
    const compactor = sessionCompactor(options);
    const counter = options.counter ?? estimate;
    const report = await this.#rewriteAsync(async (session) => {
      const { session: next, result } = await session.compact(compactor, { counter, force: args?.force === true });
      if (result === undefined || !result.compacted) return { result: undefined };
      return { messages: next.messages, metadata: next.metadata, result };
    });
    if (report !== undefined) options.onCompaction?.(report);
    return null;
  }

  /** Creates the chatstate session (a concurrent creator winning is fine). */
  async #create(): Promise<void> {
    try {
      await this.store.save(this.#empty(), { expectedVersion: 0 });
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
    }
  }

  #empty(): ChatSession {
    return ChatSession.create({
      id: this.sessionId,
      ...(this.#options.userId === undefined ? {} : { userId: this.#options.userId }),
      ...(this.#options.agentId === undefined ? {} : { agentId: this.#options.agentId }),
    });
  }

  #rewrite<T>(plan: (session: ChatSession) => Rewrite<T>): Promise<T> {
    return this.#rewriteAsync(async (session) => plan(session));
  }

  /** Reads the session, lets `plan` decide, and writes it back if the version is still the one read. */
  async #rewriteAsync<T>(plan: (session: ChatSession) => Promise<Rewrite<T>>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const stored = await this.store.get(this.sessionId);
      const session = stored ?? this.#empty();
      const decided = await plan(session);
      if (decided.messages === undefined && decided.metadata === undefined) return decided.result;
      let next = decided.messages === undefined ? session : session.withMessages(decided.messages);
      if (decided.metadata !== undefined) next = next.withMetadata(decided.metadata);
      try {
        await this.store.save(next, { expectedVersion: stored?.version ?? 0 });
        return decided.result;
      } catch (error) {
        if (!ChatstateError.hasCode(error, 'CONFLICT') || attempt >= this.#attempts) throw error;
      }
    }
  }
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new InvalidInputError('INVALID_ARGUMENT', `openai-agents: ${name} must be a positive integer`);
  return value;
}

/** A chatstate-backed OpenAI Agents `Session` (see `ChatstateSession`). */
export function chatstateSession(options: ChatstateSessionOptions): ChatstateSession {
  return new ChatstateSession(options);
}
