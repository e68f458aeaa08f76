/**
 * The lifecycle of facts (knowledge stored with `remember`): when each holds (`validFrom`), which
 * fact supersedes which, and so what `recall` may return as of a time. Facts are never changed
 * in place: a correction is a new fact that names the one it supersedes, so the past stays
 * answerable (`asOf`), and `forget` deletes a fact outright.
 * @module
 */
import { InvalidInputError, NotFoundError } from '../errors.js';
import { BoundedMap } from '../internal/bounded-map.js';
import type { Message } from '../message/message.js';
import { MESSAGE_ID_PATTERN, type JsonObject } from '../message/schema.js';
import type { SessionStore } from '../store/session-store-types.js';
import { readAfter } from './read-after.js';
import type { RecallHit, RecallOptions, RememberOptions } from './types.js';

/** Most tags of one fact. */
const MAX_TAGS = 20;
/** Longest tag, in characters. */
const MAX_TAG_CHARS = 64;

/** What is known of one stored fact. */
interface Fact {
  readonly id: string;
  /** From when it holds, in ms (its `validFrom`, else when it was stored). */
  readonly from: number;
  readonly validFrom: string;
  readonly supersedes?: string;
  readonly tags?: readonly string[];
}

/** The facts of one knowledge session, and who supersedes whom. */
export interface FactIndex {
  readonly facts: ReadonlyMap<string, Fact>;
  /** For each superseded fact, the facts that supersede it. */
  readonly supersededBy: ReadonlyMap<string, readonly Fact[]>;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', message);
}

/** A time option as ISO-8601 text, or `INVALID_ARGUMENT` naming `what`. */
function checkTime(value: unknown, what: string): string {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime()))
    throw invalid(`${what} must be an ISO-8601 date and time or a Date`);
  return date.toISOString();
}

/** A fact id as `supersedes` and `forget` take it: a message id, else `INVALID_ID`. */
/** A remembered fact as the API and the MCP tools answer it: its id, text, time and lifecycle fields. */
export interface RememberedFact {
  readonly id: string;
  readonly text: string;
  readonly timestamp: string;
  readonly validFrom?: string;
  readonly supersedes?: string;
  readonly tags?: string[];
}

/** The fact `remember` stored, from the hit it returned. */
export function rememberedFact(hit: RecallHit): RememberedFact {
  return {
    id: hit.messageId,
    text: hit.text,
    timestamp: hit.timestamp,
    ...(hit.validFrom === undefined ? {} : { validFrom: hit.validFrom }),
    ...(hit.supersedes === undefined ? {} : { supersedes: hit.supersedes }),
    ...(hit.tags === undefined ? {} : { tags: [...hit.tags] }),
  };
}

export function checkFactId(id: unknown, what = 'fact id'): string {
  if (typeof id !== 'string' || !MESSAGE_ID_PATTERN.test(id))
    throw new InvalidInputError(
      'INVALID_ID',
      `Invalid ${what} ${typeof id === 'string' ? JSON.stringify(id.slice(0, 80)) : typeof id}`,
    );
  return id;
}

/** The metadata `remember` stores with a fact for `options` (checked). */
export function factMetadata(options: RememberOptions): JsonObject {
  if (typeof options !== 'object' || options === null) throw invalid('remember options must be an object');
  const { supersedes, validFrom, tags } = options;
  if (tags !== undefined) {
    if (!Array.isArray(tags) || tags.length > MAX_TAGS)
      throw invalid(`tags must be an array of at most ${MAX_TAGS} strings`);
    for (const tag of tags)
      if (typeof tag !== 'string' || tag.trim().length === 0 || tag.length > MAX_TAG_CHARS)
        throw invalid(`each tag must be a non-empty string of at most ${MAX_TAG_CHARS} characters`);
  }
  return {
    knowledge: true,
    ...(supersedes === undefined ? {} : { supersedes: checkFactId(supersedes, 'supersedes') }),
    ...(validFrom === undefined ? {} : { validFrom: checkTime(validFrom, 'validFrom') }),
    ...(tags === undefined || tags.length === 0 ? {} : { tags: [...new Set(tags)] }),
  };
}

/** The fact a knowledge message holds, or `undefined` for any other message. */
function factOf(message: Message): Fact | undefined {
  const meta = message.metadata;
  if (meta.knowledge !== true) return undefined;
  const validFrom = typeof meta.validFrom === 'string' ? meta.validFrom : message.timestamp;
  const from = Date.parse(validFrom);
  return {
    id: message.id,
    from: Number.isNaN(from) ? Date.parse(message.timestamp) : from,
    validFrom,
    ...(typeof meta.supersedes === 'string' ? { supersedes: meta.supersedes } : {}),
    ...(Array.isArray(meta.tags) ? { tags: meta.tags.filter((tag): tag is string => typeof tag === 'string') } : {}),
  };
}

/** Knowledge sessions whose fact index a store keeps in process (the most recently used). */
const CACHED_USERS = 1000;

// Fact indexes by store and knowledge session, valid while the session's version is the one read;
// bounded, so that a server recalling for many users keeps only its recent ones.
const cache = new WeakMap<SessionStore, BoundedMap<string, { version: number; index: FactIndex }>>();

/** The facts of knowledge session `id` (empty when there is none), read once per version of it. */
export async function factIndex(store: SessionStore, id: string): Promise<FactIndex> {
  const summary = await store.summary(id);
  let byId = cache.get(store);
  if (byId === undefined) {
    byId = new BoundedMap({ max: CACHED_USERS, renew: 'use' });
    cache.set(store, byId);
  }
  const cached = byId.get(id);
  if (summary !== undefined && cached?.version === summary.version) return cached.index;
  const messages = summary === undefined ? [] : ((await readAfter(store, id, 0)) ?? []);
  const facts = new Map<string, Fact>();
  const supersededBy = new Map<string, Fact[]>();
  for (const message of messages) {
    const fact = factOf(message);
    if (fact === undefined) continue;
    facts.set(fact.id, fact);
    if (fact.supersedes !== undefined)
      supersededBy.set(fact.supersedes, [...(supersededBy.get(fact.supersedes) ?? []), fact]);
  }
  const index: FactIndex = { facts, supersededBy };
  if (summary === undefined) byId.delete(id);
  else byId.set(id, { version: summary.version, index });
  return index;
}

/** `id` when it is a fact of `index`, else `NOT_FOUND`. */
export function requireFact(index: FactIndex, id: string, what: string): string {
  if (!index.facts.has(id))
    throw new NotFoundError(`${what}: this user has no fact ${JSON.stringify(id)}`, { details: { id } });
  return id;
}

/** What a recall keeps, and how it describes the facts it returns. */
export interface RecallLifecycle {
  /** True when `message` of session `sessionId` may be recalled under the options. */
  keep(sessionId: string, message: Message): boolean;
  /** `hit` with its fact's lifecycle (`validFrom`, `supersedes`, `supersededBy`, `tags`) when it is a fact. */
  describe(hit: RecallHit): RecallHit;
}

/**
 * The lifecycle filter of one recall: messages written after `asOf` are left out, and so are facts
 * not valid at `asOf` (now, without it: facts superseded by one already in effect; facts that
 * start later are kept, they are what is known of the future), unless `includeSuperseded`.
 */
export async function recallLifecycle(
  store: SessionStore,
  knowledgeSessionId: string | undefined,
  options: Pick<RecallOptions, 'asOf' | 'includeSuperseded'>,
): Promise<RecallLifecycle | undefined> {
  const asOf = options.asOf === undefined ? undefined : Date.parse(checkTime(options.asOf, 'asOf'));
  if (options.includeSuperseded !== undefined && typeof options.includeSuperseded !== 'boolean')
    throw invalid('includeSuperseded must be a boolean');
  const includeSuperseded = options.includeSuperseded === true;
  const index = knowledgeSessionId === undefined ? undefined : await factIndex(store, knowledgeSessionId);
  const at = asOf ?? Date.now();
  const supersederOf = (fact: Fact): Fact | undefined =>
    index?.supersededBy.get(fact.id)?.find((later) => later.from <= at && later.id !== fact.id);
  return {
    keep(sessionId, message) {
      const fact = sessionId === knowledgeSessionId ? index?.facts.get(message.id) : undefined;
      if (fact === undefined) return asOf === undefined || Date.parse(message.timestamp) <= asOf;
      if (asOf !== undefined && fact.from > asOf) return false;
      return includeSuperseded || supersederOf(fact) === undefined;
    },
    describe(hit) {
      const fact = hit.source === 'knowledge' ? index?.facts.get(hit.messageId) : undefined;
      if (fact === undefined) return hit;
      const superseder = supersederOf(fact);
      return Object.freeze({
        ...hit,
        validFrom: fact.validFrom,
        ...(fact.supersedes === undefined ? {} : { supersedes: fact.supersedes }),
        ...(superseder === undefined ? {} : { supersededBy: superseder.id }),
        ...(fact.tags === undefined ? {} : { tags: Object.freeze([...fact.tags]) }),
      });
    },
  };
}
