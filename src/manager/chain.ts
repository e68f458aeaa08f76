/**
 * Walks along continuation chains: `walkChain` from any session back to the root and forward to the
 * newest successor (what `chainStats` and the server's stats view show), `followChain` forward only,
 * one step at a time (an append, a turn). Links that loop or are not valid ids are `CORRUPT`.
 * @module
 */
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/counter.js';
import { chainCycle, checkedLink, linkOf } from './continuation.js';

/** Size of one session of a chain. */
export interface ChainLink {
  readonly id: string;
  readonly messageCount: number;
  readonly tokenCount: number;
}

/** Totals across a continuation chain. */
export interface ChainStats {
  /** Ids from the root to the newest successor. */
  readonly ids: readonly string[];
  /** Each session of the chain, in the same order. */
  readonly links: readonly ChainLink[];
  /** Messages of every link (carried system and context messages count in each link that holds them). */
  readonly messageCount: number;
  readonly tokenCount: number;
  /** Linked ids whose session no longer exists (the walk stops there). */
  readonly missing: readonly string[];
}

/** One link of a walk along a chain: stop with `done`, or go on to the link `next`. */
export type ChainStep<T> = { readonly done: T } | { readonly next: string };

/**
 * Walks a continuation chain forward from session `id`: `step` visits each link and says where to
 * go next (an append, a turn: both land at the end of the chain). `CORRUPT` when the links loop.
 */
export async function followChain<T>(id: string, step: (link: string) => Promise<ChainStep<T>>): Promise<T> {
  const visited = new Set<string>();
  for (let link = id; ;) {
    if (visited.has(link)) throw chainCycle(id);
    visited.add(link);
    const outcome = await step(link);
    if ('done' in outcome) return outcome.done;
    link = outcome.next;
  }
}

/** What the walk reads of one session of a chain: its id and its two links (a session or a list row). */
export interface ChainNode {
  readonly id: string;
  readonly continuedFrom?: string | undefined;
  readonly continuedTo?: string | undefined;
}

/** Options of `walkChain`. */
export interface WalkChainOptions {
  /** Most links followed in each direction; the walk ends there quietly (a bounded view). @default no limit */
  readonly maxLinks?: number;
}

/** A chain as `walkChain` found it around its start. */
export interface ChainWalk<T> {
  /** The predecessors of the start, root first. */
  readonly before: readonly T[];
  /** The successors of the start, oldest first. */
  readonly after: readonly T[];
  /** Linked ids whose session does not exist (`read` gave nothing): the walk stops there. */
  readonly missing: readonly string[];
}

/**
 * Walks the chain of `start` back along `continuedFrom` and forward along `continuedTo`, reading
 * each linked session with `read`. `CORRUPT` when the links loop or one is not a valid id.
 */
export async function walkChain<T>(
  start: T,
  read: (id: string) => Promise<T | undefined>,
  nodeOf: (session: T) => ChainNode,
  options: WalkChainOptions = {},
): Promise<ChainWalk<T>> {
  const maxLinks = options.maxLinks ?? Number.POSITIVE_INFINITY;
  const first = nodeOf(start);
  const visited = new Set([first.id]);
  const missing: string[] = [];
  const walk = async (key: 'continuedFrom' | 'continuedTo'): Promise<T[]> => {
    const found: T[] = [];
    for (let node = first; found.length < maxLinks;) {
      const next = checkedLink(node.id, key, node[key]);
      if (next === undefined) break;
      if (visited.has(next)) throw chainCycle(first.id);
      visited.add(next);
      const session = await read(next);
      if (session === undefined) {
        missing.push(next);
        break;
      }
      found.push(session);
      node = nodeOf(session);
    }
    return found;
  };
  const before = (await walk('continuedFrom')).reverse();
  const after = await walk('continuedTo');
  return { before, after, missing };
}

/** A session's place in its chain, as `walkChain` reads it (its links from its metadata). */
function sessionNode(session: Session): ChainNode {
  return {
    id: session.id,
    continuedFrom: linkOf(session, 'continuedFrom'),
    continuedTo: linkOf(session, 'continuedTo'),
  };
}

/** Walks the chain of `start` (following `continuedFrom` back and `continuedTo` forward) and totals it; a cycle is `CORRUPT`. */
export async function chainStatsOf(
  start: Session,
  view: (id: string) => Promise<Session | undefined>,
  counter: TokenCounter,
): Promise<ChainStats> {
  const { before, after, missing } = await walkChain(start, view, sessionNode);
  const links = [...before, start, ...after].map((session) => ({
    id: session.id,
    messageCount: session.messages.length,
    tokenCount: session.tokenCount(counter),
  }));
  return {
    ids: links.map((link) => link.id),
    links,
    messageCount: links.reduce((sum, link) => sum + link.messageCount, 0),
    tokenCount: links.reduce((sum, link) => sum + link.tokenCount, 0),
    missing,
  };
}
