/**
 * Groups the rows of the session list: a continuation chain's sessions together (root first), and
 * forks under the session they were forked from — across pages. Members the loaded pages do not
 * hold are looked up among the summaries fetched by id (`fetched`); those still unknown are
 * `wanted`, for the list to fetch. A group stands where its most recently active listed member
 * stands, and a session is shown once: in the first group that holds it.
 */
import type { SessionRow } from './types.js';

/** Links followed from a listed session in each direction: a group stays bounded however long its chain. */
export const MAX_CHAIN_LINKS = 50;

/** Forks shown under a group; the session view lists all of them. */
export const MAX_GROUP_FORKS = 20;

/** A row of the grouped list. */
export interface ListGroup {
  /** The sessions of a chain, root first (one for a session alone). */
  readonly chain: readonly SessionRow[];
  /** Forks of the chain's sessions. */
  readonly forks: readonly SessionRow[];
  /** Members known to exist whose rows are not here yet (being fetched). */
  readonly pending: number;
  /** Forks of the chain's sessions past `MAX_GROUP_FORKS`, not shown. */
  readonly moreForks: number;
  /** Ids of forks a member lists that are gone (deleted, or not the caller's): shown as gone, never asked for again. */
  readonly gone: readonly string[];
}

/** The grouped list, and the ids whose summaries it still needs. */
export interface Grouping {
  readonly groups: readonly ListGroup[];
  /** Ids of members neither the pages nor `fetched` hold, in the order the groups met them. */
  readonly wanted: readonly string[];
}

/** True when `row` is a link of a continuation chain (not a session alone). */
function chained(row: SessionRow): boolean {
  return row.continuedFrom !== undefined || row.continuedTo !== undefined;
}

/**
 * The rows of the loaded pages (in list order) grouped by continuation chain, with forks beside
 * their source. `fetched` holds summaries fetched by id (`null`: gone, or not the caller's).
 */
export function groupRows(
  rows: readonly SessionRow[],
  fetched: ReadonlyMap<string, SessionRow | null> = new Map(),
): Grouping {
  const listed = new Map(rows.map((row) => [row.id, row]));
  const wanted = new Set<string>();
  /** The row of `id`: listed (the freshest), fetched, `null` when gone, `undefined` when unknown yet. */
  const lookup = (id: string): SessionRow | null | undefined => {
    const row = listed.get(id) ?? fetched.get(id);
    if (row === undefined) wanted.add(id);
    return row;
  };
  // Forks by source among the rows at hand: a fork its source does not list (older than the log) still goes with it.
  const forksBySource = new Map<string, string[]>();
  for (const row of [...rows, ...fetched.values()]) {
    const source = row?.forkedFrom?.sessionId;
    if (row === null || source === undefined) continue;
    const ids = forksBySource.get(source) ?? [];
    if (!ids.includes(row.id)) ids.push(row.id);
    forksBySource.set(source, ids);
  }

  const placed = new Set<string>();
  const groups: ListGroup[] = [];
  for (const row of rows) {
    if (placed.has(row.id)) continue;
    let pending = 0;
    const known = (id: string | undefined): SessionRow | undefined => {
      if (id === undefined) return undefined;
      const found = lookup(id);
      if (found === undefined) pending += 1;
      return found ?? undefined;
    };
    // A fork that is no chain of its own goes with its source's group (unless that group is shown already).
    let anchor = row;
    if (!chained(row) && row.forkedFrom !== undefined) {
      const source = known(row.forkedFrom.sessionId);
      if (source !== undefined && !placed.has(source.id)) anchor = source;
    }
    const chain = chainThrough(anchor, known).filter((member) => !placed.has(member.id));
    for (const member of chain) placed.add(member.id);
    // The listed fork that brought its source here is shown first, whatever the bound.
    const forks: SessionRow[] = anchor === row ? [] : [row];
    if (anchor !== row) placed.add(row.id);
    let slots = MAX_GROUP_FORKS - forks.length;
    let moreForks = 0;
    const gone: string[] = [];
    for (const member of chain) {
      // The newest first: they are the ones worth a glance.
      const ids = [...new Set([...(member.forks ?? []), ...(forksBySource.get(member.id) ?? [])])].reverse();
      for (const id of ids) {
        if (placed.has(id)) continue;
        if (slots <= 0) {
          moreForks += 1;
          continue;
        }
        slots -= 1;
        const fork = lookup(id);
        if (fork === null) {
          placed.add(id);
          gone.push(id);
          continue;
        }
        if (fork === undefined) pending += 1;
        // A fork that starts a chain of its own is shown as that chain, in its own group.
        if (fork === undefined || chained(fork)) continue;
        placed.add(fork.id);
        forks.push(fork);
      }
    }
    groups.push({ chain, forks, pending, moreForks, gone });
  }
  return { groups, wanted: [...wanted] };
}

/**
 * The chain through `start`, root first: links are followed only where both sides agree (a link
 * on one side only ends the walk), at most `MAX_CHAIN_LINKS` each way, and never in a loop.
 */
function chainThrough(start: SessionRow, known: (id: string | undefined) => SessionRow | undefined): SessionRow[] {
  const seen = new Set([start.id]);
  const before: SessionRow[] = [];
  for (let current = start; before.length < MAX_CHAIN_LINKS;) {
    const previous = known(current.continuedFrom);
    if (previous === undefined || previous.continuedTo !== current.id || seen.has(previous.id)) break;
    seen.add(previous.id);
    before.push(previous);
    current = previous;
  }
  const after: SessionRow[] = [];
  for (let current = start; after.length < MAX_CHAIN_LINKS;) {
    const next = known(current.continuedTo);
    if (next === undefined || next.continuedFrom !== current.id || seen.has(next.id)) break;
    seen.add(next.id);
    after.push(next);
    current = next;
  }
  return [...before.reverse(), start, ...after];
}
