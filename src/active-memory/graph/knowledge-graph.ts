/**
 * `KnowledgeGraph`: a user's knowledge graph (the reference MCP memory server's entities,
 * relations and observations) kept in a session of its own over any store.
 *
 * Writes that add are appended as one change on the version they were planned on (compare-and-set):
 * when another writer — another process — came first, the store answers `CONFLICT` and the write
 * is planned again on the newer graph, so no write is ever lost or applied twice. Writes that
 * remove rewrite the session as the graph without what was removed (again on the version read),
 * so a deleted observation's text leaves the store rather than staying in a log. A long log is
 * rewritten the same way into one snapshot. The session gives the graph what it gives sessions:
 * tenancy, encryption at rest, deletion with the user (`forgetUser`).
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatstateError, ConflictError, DataError, InvalidInputError } from '../../errors.js';
import type { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { SESSION_KINDS } from '../../store/session-kind.js';
import { checkInteger, checkOwnerId } from '../checks.js';
import { checkEntities, checkEntityObservations, checkNames, checkRelations, MAX_OBSERVATION_CHARS } from './checks.js';
import type { GraphState } from './graph-state.js';
import { changeMessages, foldChanges, snapshotMessages } from './log.js';
import { isEmpty, planEntities, planMerge, planObservations, planRelations } from './plan.js';
import { knowledgeGraphSessionId } from '../knowledge.js';
import type { EntityObservations, GraphAdditions, GraphEntity, GraphRelation, KnowledgeGraphData } from './types.js';

export { KNOWLEDGE_GRAPH_PREFIX, knowledgeGraphSessionId } from '../knowledge.js';

/** Writes tried when other writers keep coming first, before `CONFLICT`. */
const DEFAULT_ATTEMPTS = 100;
/** A log longer than this (messages) is rewritten into a snapshot after the next write. */
const COMPACT_AFTER = 500;

/** Options of `KnowledgeGraph`. */
export interface KnowledgeGraphOptions {
  readonly store: SessionStore;
  /** Whose graph it is. */
  readonly userId: string;
  /** Writes tried when other writers keep coming first, before `CONFLICT`. @default 100 */
  readonly maxAttempts?: number;
}

/** What `merge` did. */
export interface GraphMergeReport {
  /** Entities that were new. */
  readonly entities: number;
  /** Observations added (to new and existing entities). */
  readonly observations: number;
  /** Relations that were new. */
  readonly relations: number;
}

/** The graph as read: its state and the session it came from (undefined before the first write). */
interface Head {
  readonly state: GraphState;
  readonly session: Session | undefined;
}

/** What a planned write does: append additions, or rewrite the whole graph; and what the call answers. */
type Plan<R> =
  | { readonly kind: 'add'; readonly change: GraphAdditions; readonly result: R }
  | { readonly kind: 'rewrite'; readonly changed: boolean; readonly result: R };

/**
 * What tells one stored graph from a later one: a graph deleted and made again restarts its
 * versions, so its times count too (one made again within the same millisecond at the same
 * version would pass for the one read, until its next change).
 */
function markOf(session: { readonly version: number; readonly createdAt: string; readonly updatedAt: string }): string {
  return `${session.version} ${session.createdAt} ${session.updatedAt}`;
}

/** ✱ A user's knowledge graph over any store (see the module comment). */
export class KnowledgeGraph {
  /** The session that holds the graph. */
  readonly sessionId: string;
  readonly userId: string;
  private readonly store: SessionStore;
  private readonly maxAttempts: number;
  /** The graph last read for a read-only call, by the version it was read at (writes always read afresh: they change their state). */
  private cached: { readonly mark: string; readonly state: GraphState } | undefined;

  constructor(options: KnowledgeGraphOptions) {
    const store = options?.store;
    if (typeof store !== 'object' || store === null || typeof store.append !== 'function')
      throw new InvalidInputError('INVALID_ARGUMENT', 'KnowledgeGraph needs a store');
    const userId = checkOwnerId(options.userId, 'userId');
    if (userId === undefined)
      throw new InvalidInputError('INVALID_ARGUMENT', 'KnowledgeGraph needs a userId: a graph belongs to a user');
    this.store = store;
    this.userId = userId;
    this.sessionId = knowledgeGraphSessionId(userId);
    this.maxAttempts = checkInteger(options.maxAttempts, 'maxAttempts', 1, 10_000, DEFAULT_ATTEMPTS);
  }

  /** The whole graph. */
  async read(): Promise<KnowledgeGraphData> {
    return (await this.current()).data();
  }

  /**
   * The entities whose name, type or an observation contains `query` (case-insensitive), and the
   * relations between them.
   */
  async search(query: string): Promise<KnowledgeGraphData> {
    if (typeof query !== 'string' || query.length > MAX_OBSERVATION_CHARS)
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `query must be a string of at most ${MAX_OBSERVATION_CHARS} characters`,
      );
    const needle = query.toLowerCase();
    const matches = (text: string): boolean => text.toLowerCase().includes(needle);
    return (await this.current()).subgraph(
      (entity) => matches(entity.name) || matches(entity.entityType) || entity.observations.some(matches),
    );
  }

  /** The entities named (names that do not exist are passed over), and the relations between them. */
  async open(names: readonly string[]): Promise<KnowledgeGraphData> {
    const wanted = new Set(checkNames(names, 'names'));
    return (await this.current()).subgraph((entity) => wanted.has(entity.name));
  }

  /** Creates the entities whose names are new (others are passed over); returns those created. */
  async createEntities(entities: readonly GraphEntity[]): Promise<GraphEntity[]> {
    const checked = checkEntities(entities);
    return this.write((state) => {
      const created = planEntities(state, checked);
      return { kind: 'add', change: { entities: created, observations: [], relations: [] }, result: created };
    });
  }

  /** Creates the relations that are new (duplicates are passed over); returns those created. */
  async createRelations(relations: readonly GraphRelation[]): Promise<GraphRelation[]> {
    const checked = checkRelations(relations);
    return this.write((state) => {
      const created = planRelations(state, checked);
      return { kind: 'add', change: { entities: [], observations: [], relations: created }, result: created };
    });
  }

  /**
   * Adds observations to existing entities (those already there are passed over); returns what each
   * entry added. `NOT_FOUND` naming an entity that does not exist, and nothing is added.
   */
  async addObservations(
    additions: ReadonlyArray<{ readonly entityName: string; readonly contents: readonly string[] }>,
  ): Promise<Array<{ entityName: string; addedObservations: string[] }>> {
    const checked = checkEntityObservations(additions, 'observations', 'contents');
    return this.write((state) => {
      const planned = planObservations(state, checked);
      return {
        kind: 'add',
        change: { entities: [], observations: planned, relations: [] },
        result: planned.map((entry) => ({ entityName: entry.entityName, addedObservations: [...entry.observations] })),
      };
    });
  }

  /** Deletes entities and every relation from or to them; names that do not exist are passed over. */
  async deleteEntities(names: readonly string[]): Promise<void> {
    const checked = checkNames(names, 'entityNames');
    await this.write((state) => ({ kind: 'rewrite', changed: state.deleteEntities(checked), result: undefined }));
  }

  /** Deletes observations of entities; entities and observations that do not exist are passed over. */
  async deleteObservations(deletions: readonly EntityObservations[]): Promise<void> {
    const checked = checkEntityObservations(deletions, 'deletions', 'observations');
    await this.write((state) => ({ kind: 'rewrite', changed: state.deleteObservations(checked), result: undefined }));
  }

  /** Deletes relations; relations that do not exist are passed over. */
  async deleteRelations(relations: readonly GraphRelation[]): Promise<void> {
    const checked = checkRelations(relations);
    await this.write((state) => ({ kind: 'rewrite', changed: state.deleteRelations(checked), result: undefined }));
  }

  /**
   * Brings `graph` in, atomically: its new entities, the observations existing entities lack, its
   * new relations (an import). Checked whole first: a bad item refuses it all, nothing is written.
   */
  async merge(graph: KnowledgeGraphData): Promise<GraphMergeReport> {
    const entities = checkEntities(graph?.entities, 'entities', Infinity);
    const relations = checkRelations(graph?.relations, 'relations', Infinity);
    return this.write((state) => {
      const change = planMerge(state, { entities, relations });
      const observations =
        change.entities.reduce((sum, entity) => sum + entity.observations.length, 0) +
        change.observations.reduce((sum, entry) => sum + entry.observations.length, 0);
      return {
        kind: 'add',
        change,
        result: { entities: change.entities.length, observations, relations: change.relations.length },
      };
    });
  }

  /** Plans on the newest graph and writes on the version read; plans again when another writer came first. */
  private async write<R>(plan: (state: GraphState) => Plan<R>): Promise<R> {
    for (let attempt = 1; ; attempt += 1) {
      const head = await this.head();
      const planned = plan(head.state);
      try {
        if (planned.kind === 'add') {
          if (isEmpty(planned.change)) return planned.result;
          await this.append(head.session, changeMessages(planned.change));
        } else {
          if (!planned.changed || head.session === undefined) return planned.result;
          await this.rewrite(head.session, snapshotMessages(head.state));
        }
        return planned.result;
      } catch (error) {
        // Another writer came first (or deleted the graph meanwhile): plan again on what is there now.
        if (!ChatstateError.hasCode(error, 'CONFLICT', 'NOT_FOUND')) throw error;
        if (attempt >= this.maxAttempts)
          throw new ConflictError(
            `The knowledge graph kept changing: ${attempt} writes in a row found a newer version; try again`,
            { cause: error, details: { sessionId: this.sessionId, attempts: attempt } },
          );
        // Jittered backoff, so that writers who collided do not collide again in step.
        await sleep(Math.random() * Math.min(50, 2 ** attempt));
      }
    }
  }

  /** Appends `messages` on the version of `session` (creating the session when there is none). */
  private async append(session: Session | undefined, messages: Message[]): Promise<void> {
    if (session === undefined) {
      await this.store.save(
        Session.create({
          id: this.sessionId,
          userId: this.userId,
          metadata: { chatstate: SESSION_KINDS.knowledgeGraph },
          messages,
        }),
        { expectedVersion: 0 },
      );
      return;
    }
    await this.store.append(this.sessionId, messages, { expectedVersion: session.version });
    if (session.messages.length + messages.length > COMPACT_AFTER) await this.compact();
  }

  /**
   * Rewrites the log as one snapshot, at best: the write before it is done, so a failure here (a
   * writer that came first, an outage) leaves the log as it is for the next write to compact.
   */
  private async compact(): Promise<void> {
    try {
      const session = await this.store.get(this.sessionId);
      if (session !== undefined)
        await this.rewrite(session, snapshotMessages(foldChanges(session.messages, this.sessionId)));
    } catch {
      // Left for the next write (see above).
    }
  }

  /**
   * Saves `session` with `messages` as its whole history, on its version. Saved twice, as `forget`
   * does: a store that keeps the state before a rewrite as its crash backup (the file store) then
   * holds no copy of what was removed.
   */
  private async rewrite(session: Session, messages: Message[]): Promise<void> {
    const saved = await this.store.save(session.withMessages(messages), {
      expectedVersion: session.version,
      erase: true,
    });
    try {
      await this.store.save(saved, { expectedVersion: saved.version });
    } catch (error) {
      // Another writer came in between: its write stands, and the backup clears at the next rewrite.
      if (!ChatstateError.hasCode(error, 'CONFLICT', 'NOT_FOUND')) throw error;
    }
  }

  /**
   * The newest graph for a read-only call: the one read before while the session's version is the
   * same (one head read instead of reading and parsing the whole graph on every call).
   */
  private async current(): Promise<GraphState> {
    const cached = this.cached;
    if (cached !== undefined) {
      const summary = await this.store.summary(this.sessionId);
      if (summary !== undefined && summary.damaged === undefined && markOf(summary) === cached.mark)
        return cached.state;
    }
    const head = await this.head();
    this.cached = head.session === undefined ? undefined : { mark: markOf(head.session), state: head.state };
    return head.state;
  }

  /** The newest graph; `CORRUPT` when the session under the graph's id is not this user's graph. */
  private async head(): Promise<Head> {
    const session = await this.store.get(this.sessionId);
    if (session === undefined) return { state: foldChanges([], this.sessionId), session: undefined };
    if (session.userId !== this.userId)
      throw new DataError(
        'CORRUPT',
        `${this.store.name}: session ${this.sessionId} should hold this user's knowledge graph but belongs to another owner; it was left untouched`,
        { details: { sessionId: this.sessionId } },
      );
    return { state: foldChanges(session.messages, this.sessionId), session };
  }
}
