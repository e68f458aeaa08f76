/**
 * `chainStats`: message and token totals across a continuation chain, walked through its links in
 * both directions from any of its sessions.
 * @module
 */
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/counter.js';
import { chainCycle, linkTarget } from './continuation.js';

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

/** Walks the chain of `start` (following `continuedFrom` back and `continuedTo` forward) and totals it; a cycle is `CORRUPT`. */
export async function chainStatsOf(
  start: Session,
  view: (id: string) => Promise<Session | undefined>,
  counter: TokenCounter,
): Promise<ChainStats> {
  const visited = new Set([start.id]);
  const missing: string[] = [];
  const walk = async (key: 'continuedFrom' | 'continuedTo'): Promise<Session[]> => {
    const found: Session[] = [];
    for (let next = linkTarget(start, key); next !== undefined;) {
      if (visited.has(next)) throw chainCycle(start.id);
      visited.add(next);
      const session = await view(next);
      if (session === undefined) {
        missing.push(next);
        break;
      }
      found.push(session);
      next = linkTarget(session, key);
    }
    return found;
  };
  const before = (await walk('continuedFrom')).reverse();
  const after = await walk('continuedTo');
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
