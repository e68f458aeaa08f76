/**
 * Working memory: one JSON document per user (or per user and agent) that the model reads in its
 * system prompt and changes with JSON merge patches.
 *
 * It is kept as a session of its own, one `context` message per version (the document as a JSON
 * file part, who wrote it and the patch in `metadata.workingMemory`), so every store gives it what
 * it gives sessions: an atomic append on an expected version (two processes never lose an edit:
 * the loser gets `CONFLICT` and applies its patch again to the newest version), the history of
 * every version, tenancy, encryption at rest and deletion with the user's sessions. Its messages
 * have no text, so recall never finds them.
 * @module
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatstateError, ConflictError, DataError, InvalidInputError } from '../errors.js';
import { readJsonObject } from '../message/json-value.js';
import { Message } from '../message/message.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import { Session } from '../session/session.js';
import type { SessionStore, SessionSummary } from '../store/session-store-types.js';
import { SESSION_KINDS } from '../store/session-kind.js';
import { MAX_HISTORY_LIMIT, MAX_VALUE_BYTES, checkInteger, checkOwnerId } from './checks.js';
import { mergePatch } from './merge-patch.js';
import { messagePage } from './message-page.js';
import { checkSchema, type CheckedSchema, type JsonSchema, type WorkingMemorySchema } from './working-memory-schema.js';

/** Session ids starting with this are reserved for working memories: a turn may not create one. */
export const WORKING_MEMORY_PREFIX = 'working-memory-';
/** Default size limit of a working memory document: 32 KiB of JSON (it is sent with every turn). */
export const DEFAULT_WORKING_MEMORY_BYTES = 32 * 1024;
/** Default number of writes tried when other writers keep coming first. */
const DEFAULT_ATTEMPTS = 20;
/** Media type of the file part that holds a version's document. */
const MEDIA_TYPE = 'application/json';

/**
 * The session id of `userId`'s working memory (with `agentId`: that agent's memory of the user):
 * a SHA-256 of both, so any ids give a valid session id and none can name another user's memory.
 */
export function workingMemorySessionId(userId: string, agentId?: string): string {
  const hash = createHash('sha256').update('chatstate.working-memory\0').update(userId, 'utf8');
  if (agentId !== undefined) hash.update('\0').update(agentId, 'utf8');
  return `${WORKING_MEMORY_PREFIX}${hash.digest('hex')}`;
}

/** Options of `WorkingMemory`. */
export interface WorkingMemoryOptions {
  readonly store: SessionStore;
  /** Whose memory it is. */
  readonly userId: string;
  /** Keeps a memory of this agent's own for the user; without it, one memory shared by the user's agents. */
  readonly agentId?: string;
  /** Every written document must match it (a refused patch writes nothing). */
  readonly schema?: WorkingMemorySchema;
  /** Largest document, in bytes of its JSON text (UTF-8): a larger one is refused with `TOO_LARGE`. @default 32 KiB */
  readonly maxBytes?: number;
  /** Writes tried when other writers keep coming first, before `CONFLICT`. @default 20 */
  readonly maxAttempts?: number;
}

/** One version of a working memory. */
export interface WorkingMemoryVersion {
  /** 1 for the first stored version; 0 for a memory never written (its document is `{}`). */
  readonly version: number;
  readonly document: JsonObject;
  /** Who wrote it (`by` of `update`). */
  readonly by?: string;
  /** When it was written (ISO-8601). */
  readonly at?: string;
  /** The merge patch that made it from the version before; absent on the first version. */
  readonly patch?: JsonObject;
}

/** Options of `WorkingMemory.update`. */
export interface UpdateWorkingMemoryOptions {
  /** Who makes the change, kept with the version (1–256 characters). @default 'app' */
  readonly by?: string;
  /**
   * Apply the patch only to this version (0: only while nothing is written), else `CONFLICT`
   * without a retry: for a caller that showed someone a version and patches what they saw.
   */
  readonly expectedVersion?: number;
}

/** Options of `WorkingMemory.history`. */
export interface WorkingMemoryHistoryOptions {
  /** Most versions returned (the newest of the range). @default 50 */
  readonly limit?: number;
  /** Cursor: only versions older than this (the previous page's `nextBefore`). */
  readonly before?: number;
}

/** One page of a working memory's versions, oldest first. */
export interface WorkingMemoryHistoryPage {
  readonly versions: readonly WorkingMemoryVersion[];
  /** Cursor of the next older page; `undefined` when this page reaches the first version. */
  readonly nextBefore?: number;
}

/** The newest stored version, and the session version it was read at (what the next append expects). */
interface Head {
  readonly sessionVersion: number;
  readonly entry: WorkingMemoryVersion;
}

const EMPTY: WorkingMemoryVersion = Object.freeze({ version: 0, document: Object.freeze({}) });

function invalid(message: string, details?: Record<string, unknown>): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', message, details === undefined ? {} : { details });
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

function checkBy(by: unknown): string {
  if (by === undefined) return 'app';
  if (typeof by !== 'string' || by.length === 0 || by.length > 256 || CONTROL.test(by))
    throw invalid('"by" must be 1 to 256 characters without control characters');
  return by;
}

/** ✱ A user's (or a user and agent's) working memory over any store (see the module comment). */
export class WorkingMemory {
  /** The session that holds the versions. */
  readonly sessionId: string;
  readonly userId: string;
  readonly agentId: string | undefined;
  /** Largest document, in bytes of JSON. */
  readonly maxBytes: number;
  private readonly store: SessionStore;
  private readonly schema: CheckedSchema | undefined;
  private readonly maxAttempts: number;

  constructor(options: WorkingMemoryOptions) {
    const store = options?.store;
    if (typeof store !== 'object' || store === null || typeof store.readMessages !== 'function')
      throw invalid('WorkingMemory needs a store');
    this.store = store;
    const userId = checkOwnerId(options.userId, 'userId');
    if (userId === undefined) throw invalid('WorkingMemory needs a userId: a working memory belongs to a user');
    this.userId = userId;
    this.agentId = checkOwnerId(options.agentId, 'agentId');
    this.sessionId = workingMemorySessionId(userId, this.agentId);
    this.schema = options.schema === undefined ? undefined : checkSchema(options.schema);
    this.maxBytes = checkInteger(options.maxBytes, 'maxBytes', 2, MAX_VALUE_BYTES, DEFAULT_WORKING_MEMORY_BYTES);
    this.maxAttempts = checkInteger(options.maxAttempts, 'maxAttempts', 1, 1000, DEFAULT_ATTEMPTS);
  }

  /** The JSON Schema documents must match (for the model), if any. */
  get jsonSchema(): JsonSchema | undefined {
    return this.schema?.jsonSchema;
  }

  /** The newest version (version 0 with `{}` when nothing was written yet). */
  async read(): Promise<WorkingMemoryVersion> {
    return (await this.head())?.entry ?? EMPTY;
  }

  /**
   * Applies the JSON merge patch `patch` (RFC 7396) to the newest version and stores the result as
   * the next version. When another writer stored a version first, the patch is applied again to
   * that one (up to `maxAttempts`, then `CONFLICT`), so concurrent edits are never lost. A result
   * over `maxBytes` is refused with `TOO_LARGE`, one that does not match the schema with
   * `INVALID_ARGUMENT`; either way nothing is written.
   */
  async update(patch: JsonObject, options: UpdateWorkingMemoryOptions = {}): Promise<WorkingMemoryVersion> {
    const read = readJsonObject(patch, { maxChars: MAX_VALUE_BYTES });
    if (!read.ok) {
      const tooLarge = read.problem.kind === 'too-large';
      throw new InvalidInputError(
        tooLarge ? 'TOO_LARGE' : 'INVALID_ARGUMENT',
        `The working memory patch must be a JSON object (a merge patch): ${read.problem.message}`,
        { details: { path: read.problem.path } },
      );
    }
    const checkedPatch = read.value;
    const by = checkBy(options.by);
    const expected =
      options.expectedVersion === undefined
        ? undefined
        : checkInteger(options.expectedVersion, 'expectedVersion', 0, Number.MAX_SAFE_INTEGER, 0);
    for (let attempt = 1; ; attempt += 1) {
      const head = await this.head();
      const current = head?.entry ?? EMPTY;
      if (expected !== undefined && current.version !== expected)
        throw new ConflictError(
          `The working memory is at version ${current.version}, not ${expected}: read it again and patch that version`,
          { details: { sessionId: this.sessionId, expectedVersion: expected, version: current.version } },
        );
      const document = mergePatch(current.document, checkedPatch) as JsonObject;
      this.check(document);
      try {
        if (head === undefined) {
          // A new memory starts with its empty version, so the history shows every change as a patch.
          const first = entryMessage(1, EMPTY.document, by, undefined);
          const second = entryMessage(2, document, by, checkedPatch);
          await this.store.save(
            Session.create({
              id: this.sessionId,
              userId: this.userId,
              ...(this.agentId === undefined ? {} : { agentId: this.agentId }),
              metadata: { chatstate: SESSION_KINDS.workingMemory },
              messages: [first, second],
            }),
            { expectedVersion: 0 },
          );
          return decode(second, this.sessionId);
        }
        const entry = entryMessage(current.version + 1, document, by, checkedPatch);
        const result = await this.store.append(this.sessionId, [entry], { expectedVersion: head.sessionVersion });
        return decode(result.appended[0] ?? entry, this.sessionId);
      } catch (error) {
        // Another writer came first (or deleted the memory meanwhile): apply the patch to what is there now.
        if (!ChatstateError.hasCode(error, 'CONFLICT', 'NOT_FOUND')) throw error;
        if (attempt >= this.maxAttempts)
          throw new ConflictError(
            `The working memory kept changing: ${attempt} writes in a row found a newer version; try again`,
            { cause: error, details: { sessionId: this.sessionId, attempts: attempt } },
          );
        // Jittered backoff, so that writers who collided do not collide again in step.
        await sleep(Math.random() * Math.min(100, 2 ** attempt));
      }
    }
  }

  /** A page of stored versions, oldest first, newest page first. */
  async history(options: WorkingMemoryHistoryOptions = {}): Promise<WorkingMemoryHistoryPage> {
    const limit = checkInteger(options.limit, 'limit', 1, MAX_HISTORY_LIMIT, 50);
    const before = checkInteger(options.before, 'before', 1, Number.MAX_SAFE_INTEGER, 0);
    if ((await this.summary()) === undefined) return Object.freeze({ versions: Object.freeze([]) });
    const { messages: page, nextBefore } = await messagePage(
      this.store,
      this.sessionId,
      limit,
      before === 0 ? undefined : before,
    );
    return Object.freeze({
      versions: Object.freeze(page.map((message) => decode(message, this.sessionId))),
      ...(nextBefore === undefined ? {} : { nextBefore }),
    });
  }

  /** Refuses `document` when it is over the size limit or does not match the schema. */
  private check(document: JsonObject): void {
    const bytes = Buffer.byteLength(JSON.stringify(document), 'utf8');
    if (bytes > this.maxBytes)
      throw new InvalidInputError(
        'TOO_LARGE',
        `The working memory would be ${bytes} bytes of JSON; the limit is ${this.maxBytes}. Nothing was changed: remove what is no longer needed (set it to null)`,
        { details: { bytes, limit: this.maxBytes } },
      );
    const problem = this.schema?.problem(document);
    if (problem !== undefined)
      throw invalid(`The working memory would not match its schema, so nothing was changed:\n${problem}`, {
        reason: 'schema',
      });
  }

  /** The session's row, refused with `CORRUPT` when it is not this memory's (made by hand under the derived id). */
  private async summary(): Promise<SessionSummary | undefined> {
    const summary = await this.store.summary(this.sessionId);
    if (summary === undefined) return undefined;
    if (summary.userId !== this.userId || summary.agentId !== this.agentId)
      throw new DataError(
        'CORRUPT',
        `${this.store.name}: session ${this.sessionId} should hold this working memory but belongs to another owner; it was left untouched`,
        { details: { sessionId: this.sessionId } },
      );
    return summary;
  }

  private async head(): Promise<Head | undefined> {
    // The version first, then the newest message: a version appended in between makes the write
    // that follows fail on its expected version, never overwrite what it did not read.
    const summary = await this.summary();
    if (summary === undefined) return undefined;
    let newest: Message | undefined;
    try {
      [newest] = await this.store.readMessages(this.sessionId, { limit: 1 });
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) return undefined;
      throw error;
    }
    return { sessionVersion: summary.version, entry: newest === undefined ? EMPTY : decode(newest, this.sessionId) };
  }
}

/** The message of version `version`. */
function entryMessage(version: number, document: JsonObject, by: string, patch: JsonObject | undefined): Message {
  return Message.context(
    [
      {
        type: 'file',
        data: Buffer.from(JSON.stringify(document), 'utf8').toString('base64'),
        mediaType: MEDIA_TYPE,
        filename: `working-memory-v${version}.json`,
      },
    ],
    { metadata: { workingMemory: { version, by, ...(patch === undefined ? {} : { patch }) } } },
  );
}

/** The version a stored message holds; `CORRUPT` when it is not one. */
function decode(message: Message, sessionId: string): WorkingMemoryVersion {
  const corrupt = (why: string): DataError =>
    new DataError('CORRUPT', `Working memory ${sessionId}: message ${message.id} is not a version (${why})`, {
      details: { sessionId, messageId: message.id },
    });
  const meta = message.metadata.workingMemory as JsonValue | undefined;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw corrupt('no workingMemory metadata');
  const { version, by, patch } = meta as Record<string, JsonValue | undefined>;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw corrupt('no version');
  const part = Array.isArray(message.content) ? message.content[0] : undefined;
  if (part?.type !== 'file' || part.mediaType !== MEDIA_TYPE || part.data === undefined)
    throw corrupt('no JSON document');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part.data, 'base64').toString('utf8'));
  } catch {
    throw corrupt('the document is not JSON');
  }
  const document = readJsonObject(parsed);
  if (!document.ok) throw corrupt('the document is not a JSON object');
  return Object.freeze({
    version,
    document: document.value,
    ...(typeof by === 'string' ? { by } : {}),
    at: message.timestamp,
    ...(typeof patch === 'object' && patch !== null && !Array.isArray(patch) ? { patch: patch as JsonObject } : {}),
  });
}
