/**
 * `ChatstateSessionStore`: the Claude Agent SDK's `SessionStore` over any chatstate store.
 *
 * A transcript is one chatstate session (`keys.ts` for its id), an entry one message (`entries.ts`):
 * an append is one atomic, idempotent store append, so entries keep the store's order and a retried
 * batch adds nothing. A main transcript's summary lives in its sidecar (`sidecar.ts`), folded with
 * the SDK's `foldSessionSummary` over the transcript's messages in sequence order, up to the last
 * one folded, and written by compare-and-replace: whichever process folds, every entry is folded
 * once, in the transcript's order. Retention is the store's: every session the adapter writes is
 * saved with `ttlMs`, and each append slides it.
 * @module
 */
import { ChatstateError, InvalidInputError } from '../../errors.js';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStore, SessionSummary } from '../../store/session-store-types.js';
import { ENTRY_KEY, checkEntries, entryMessage, messageEntry } from './entries.js';
import {
  SIDECAR_SUFFIX,
  checkKey,
  checkPrefix,
  checkProjectKey,
  checkSessionKey,
  decodePart,
  keyIds,
  projectPrefix,
  type KeyIds,
} from './keys.js';
import { jsonCopy, loadFold, sidecarState, updateSidecar, type SidecarWriter } from './sidecar.js';
import type { ClaudeSessionEntry, ClaudeSessionKey, ClaudeSessionListing, ClaudeSessionSummary } from './types.js';

/** Options of `chatstateSessionStore`. */
export interface ChatstateSessionStoreOptions {
  /** Where transcripts live: any chatstate store (`fileStore`, `sqliteStore`, `openStore(url)`, `tenantStore`, …). */
  readonly store: SessionStore;
  /** Retention: each transcript (and sidecar) expires this many milliseconds after its last write. @default none */
  readonly ttlMs?: number;
  /** First part of every session id the adapter writes (1–6 letters or digits). @default 'claude' */
  readonly sessionPrefix?: string;
  /** Owner recorded on the sessions the adapter creates (for `list({ userId })`, tenants, `forgetUser`). */
  readonly userId?: string;
  /** Agent recorded on the sessions the adapter creates. */
  readonly agentId?: string;
  /** Attempts of a sidecar update (summary, subpath registry) before `CONFLICT`. @default 16 */
  readonly maxAttempts?: number;
}

/** Sessions read at once when a listing needs their sidecars. */
const READ_CONCURRENCY = 8;

/** Rows per page of a listing. */
const PAGE = 1000;

/** A message stored with its sequence number, and the entry it holds. */
interface Stored {
  readonly seq: number;
  readonly entry: ClaudeSessionEntry;
}

/** `work` over `items`, at most `READ_CONCURRENCY` at a time, results in order. */
async function mapLimited<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, items.length) }, worker));
  return results;
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new InvalidInputError('INVALID_ARGUMENT', `claude-agent-sdk: ${name} must be a positive integer`);
  return value;
}

/** The entries of `messages`, with their sequence numbers (messages another writer added are skipped). */
function storedEntries(messages: readonly Message[]): Stored[] {
  return messages.flatMap((message) => {
    const entry = messageEntry(message);
    return entry === undefined || message.seq === undefined ? [] : [{ seq: message.seq, entry }];
  });
}

/** ✱ The Claude Agent SDK's `SessionStore` over a chatstate store (see the module comment). */
export class ChatstateSessionStore {
  /** The chatstate store the transcripts live in. */
  readonly store: SessionStore;
  readonly #prefix: string;
  readonly #writer: SidecarWriter;
  readonly #options: ChatstateSessionStoreOptions;

  constructor(options: ChatstateSessionStoreOptions) {
    if (typeof options !== 'object' || options === null || typeof options.store?.append !== 'function')
      throw new InvalidInputError('INVALID_ARGUMENT', 'claude-agent-sdk: chatstateSessionStore needs { store }');
    this.store = options.store;
    this.#options = options;
    this.#prefix = checkPrefix(options.sessionPrefix ?? 'claude');
    if (options.ttlMs !== undefined) positive(options.ttlMs, 'ttlMs');
    this.#writer = {
      store: options.store,
      maxAttempts: positive(options.maxAttempts ?? 16, 'maxAttempts'),
      ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
      ...(options.userId === undefined ? {} : { userId: options.userId }),
      ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
    };
  }

  /** The chatstate session id of a key's transcript (for `chatstate show`, the server, the web browser). */
  sessionIdOf(key: ClaudeSessionKey): string {
    return keyIds(this.#prefix, checkKey(key)).transcript;
  }

  /**
   * Appends `entries` to the key's transcript in one atomic store append: entries whose uuid is
   * stored already are skipped, entries without one are stored once per call. A main transcript's
   * summary is folded afterwards.
   */
  async append(key: ClaudeSessionKey, entries: ClaudeSessionEntry[]): Promise<void> {
    const checked = checkKey(key);
    // Every entry is checked and made a message before anything is written: a bad one writes nothing.
    const messages = checkEntries(entries).map((entry) => Message.create(entryMessage(entry)));
    if (messages.length === 0) return;
    const ids = keyIds(this.#prefix, checked);
    let appended: readonly Message[];
    try {
      appended = (await this.store.append(ids.transcript, messages)).appended;
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'NOT_FOUND')) throw error;
      await this.#create(ids, checked);
      appended = (await this.store.append(ids.transcript, messages)).appended;
    }
    if (checked.subpath === undefined) await this.#fold(ids, checked, storedEntries(appended));
  }

  /** The key's entries in the store's order, deep-equal to those appended; `null` when it has none. */
  async load(key: ClaudeSessionKey): Promise<ClaudeSessionEntry[] | null> {
    const ids = keyIds(this.#prefix, checkKey(key));
    try {
      return storedEntries(await this.store.readMessages(ids.transcript)).map((stored) => stored.entry);
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) return null;
      throw error;
    }
  }

  /** The project's sessions (main transcripts) with the time of their last append. */
  async listSessions(projectKey: string): Promise<ClaudeSessionListing[]> {
    const prefix = projectPrefix(this.#prefix, checkProjectKey(projectKey));
    const mains = (await this.#listAll(prefix)).filter((row) => !row.id.slice(prefix.length).includes('.'));
    const listed = await mapLimited(mains, async (row) => {
      const part = row.id.slice(prefix.length);
      const sessionId = decodePart(part) ?? (await this.#keyOf(row.id))?.sessionId;
      return sessionId === undefined ? [] : [{ sessionId, mtime: Date.parse(row.updatedAt) }];
    });
    return listed.flat();
  }

  /** The project's session summaries, as the SDK folded them; `mtime` is when each was written. */
  async listSessionSummaries(projectKey: string): Promise<ClaudeSessionSummary[]> {
    const prefix = projectPrefix(this.#prefix, checkProjectKey(projectKey));
    const sidecars = (await this.#listAll(prefix)).filter((row) => {
      const parts = row.id.slice(prefix.length).split('.');
      return parts.length === 2 && parts[1] === SIDECAR_SUFFIX;
    });
    const summaries = await mapLimited(sidecars, async (row) => {
      const sidecar = await this.store.get(row.id);
      const state = sidecarState(sidecar);
      if (sidecar === undefined || state.summary === undefined || state.key === undefined) return [];
      return [{ sessionId: state.key.sessionId, mtime: Date.parse(sidecar.updatedAt), data: state.summary }];
    });
    return summaries.flat();
  }

  /** Deletes the key's transcript; a main transcript's delete removes its subagent transcripts and sidecar too. */
  async delete(key: ClaudeSessionKey): Promise<void> {
    const checked = checkKey(key);
    const ids = keyIds(this.#prefix, checked);
    if (checked.subpath === undefined) {
      // The main transcript goes last: a delete cut short leaves it listed, and a retry finishes.
      for (const row of await this.#listAll(`${ids.main}.`)) await this.store.delete(row.id);
    }
    await this.store.delete(ids.transcript);
  }

  /** The subpaths of the session's subagent transcripts. */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const ids = keyIds(this.#prefix, checkSessionKey(key));
    const under = `${ids.main}.`;
    const parts = (await this.#listAll(under))
      .map((row) => row.id.slice(under.length))
      .filter((part) => part !== SIDECAR_SUFFIX && !part.includes('.'));
    let registry: Readonly<Record<string, string>> | undefined;
    const subpaths = await mapLimited(parts, async (part) => {
      const readable = decodePart(part);
      if (readable !== undefined) return [readable];
      registry ??= sidecarState(await this.store.get(ids.sidecar)).subpaths;
      // Registered before the transcript was created; a transcript's own metadata as the last resort.
      const subpath = Object.hasOwn(registry, part)
        ? registry[part]
        : (await this.#keyOf(`${ids.main}.${part}`))?.subpath;
      return subpath === undefined ? [] : [subpath];
    });
    return subpaths.flat();
  }

  /** Every row of `list` whose id starts with `idPrefix`. */
  async #listAll(idPrefix: string): Promise<SessionSummary[]> {
    const rows: SessionSummary[] = [];
    for (;;) {
      const after = rows.at(-1);
      const page = await this.store.list({
        idPrefix,
        kinds: 'all',
        limit: PAGE,
        ...(after === undefined ? {} : { after }),
      });
      rows.push(...page);
      if (page.length < PAGE) return rows;
    }
  }

  /** The key a session was created for, from its sidecar (cheap) or its own metadata. */
  async #keyOf(id: string): Promise<ClaudeSessionKey | undefined> {
    const parts = id.split('.');
    if (parts.length === 3) {
      const key = sidecarState(await this.store.get(`${id}.${SIDECAR_SUFFIX}`)).key;
      if (key !== undefined) return key;
    }
    const stored = (await this.store.get(id))?.metadata[ENTRY_KEY];
    const key = typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored : undefined;
    try {
      return key === undefined ? undefined : checkKey(key);
    } catch {
      return undefined;
    }
  }

  /**
   * Creates the key's transcript (a concurrent creator winning is fine). A subagent transcript is
   * registered in the sidecar first, so `listSubkeys` can name it; a main transcript made anew
   * (after a delete or an expiry) starts its summary over.
   */
  async #create(ids: KeyIds, key: ClaudeSessionKey): Promise<void> {
    if (ids.subpart !== undefined) {
      const { subpart } = ids;
      const subpath = key.subpath as string;
      await updateSidecar(
        this.#writer,
        ids.sidecar,
        key,
        async (state) =>
          state.subpaths[subpart] === subpath
            ? undefined
            : { ...state, subpaths: { ...state.subpaths, [subpart]: subpath } },
        { keepUpdatedAt: true },
      );
    }
    const { userId, agentId, ttlMs } = this.#options;
    const transcript = Session.create({
      id: ids.transcript,
      ...(userId === undefined ? {} : { userId }),
      ...(agentId === undefined ? {} : { agentId }),
      metadata: { [ENTRY_KEY]: jsonCopy({ ...key }) },
    });
    try {
      await this.store.save(transcript, { expectedVersion: 0, ...(ttlMs === undefined ? {} : { ttlMs }) });
    } catch (error) {
      if (ChatstateError.hasCode(error, 'CONFLICT')) return;
      throw error;
    }
    if (ids.subpart === undefined)
      await updateSidecar(this.#writer, ids.sidecar, key, async (state) =>
        state.summary === undefined && state.foldedSeq === 0 ? undefined : { subpaths: state.subpaths, foldedSeq: 0 },
      );
  }

  /**
   * Folds the main transcript into its summary up to its last message (read when the fold is
   * made): the entries this append stored are in hand, those before and after them (another
   * process's, not folded yet) are read. So the sidecar, once written, holds every entry committed
   * before its write began, and a writer that stopped before folding leaves a summary older than
   * its transcript (which the SDK then reads itself) only for that short while. A retry that
   * stored nothing still folds what a failed fold left.
   */
  async #fold(ids: KeyIds, key: ClaudeSessionKey, appended: readonly Stored[]): Promise<void> {
    const fold = await loadFold();
    await updateSidecar(this.#writer, ids.sidecar, key, async (state) => {
      const end = (await this.#read(ids.main, { limit: 1 })).at(-1)?.seq ?? 0;
      const target = Math.max(end, appended.at(-1)?.seq ?? 0);
      if (state.foldedSeq >= target) return undefined;
      const ours = appended.filter((stored) => stored.seq > state.foldedSeq);
      const first = ours[0]?.seq ?? target + 1;
      const last = ours.at(-1)?.seq ?? state.foldedSeq;
      const range = async (afterSeq: number, beforeSeq: number): Promise<Stored[]> =>
        afterSeq + 1 < beforeSeq ? storedEntries(await this.#read(ids.main, { afterSeq, beforeSeq })) : [];
      const before = await range(state.foldedSeq, first);
      const after = ours.length === 0 ? [] : await range(last, target + 1);
      const entries = [...before, ...ours, ...after].map((stored) => stored.entry);
      const previous =
        state.summary === undefined ? undefined : { sessionId: key.sessionId, mtime: 0, data: state.summary };
      const next = fold(previous, { projectKey: key.projectKey, sessionId: key.sessionId }, entries, {
        mtime: Date.now(),
      });
      return { ...state, summary: jsonCopy(next.data), foldedSeq: target };
    });
  }

  /** Messages of the transcript `id`; none when it is gone (deleted or expired meanwhile). */
  async #read(id: string, range: { afterSeq?: number; beforeSeq?: number; limit?: number }): Promise<Message[]> {
    try {
      return await this.store.readMessages(id, range);
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) return [];
      throw error;
    }
  }
}

/** The Claude Agent SDK's `SessionStore` over a chatstate store (see `ChatstateSessionStore`). */
export function chatstateSessionStore(options: ChatstateSessionStoreOptions): ChatstateSessionStore {
  return new ChatstateSessionStore(options);
}
