/**
 * Groups the rows of a list page: a continuation chain's sessions together (root first), and
 * forks under the session they were forked from, when both are on the page. A group stands where
 * its most recently active member stands in the list.
 */
import type { SessionRow } from './types.js';

/** A row of the grouped list. */
export interface ListGroup {
  /** The sessions of a chain, root first (one for a session alone). */
  readonly chain: readonly SessionRow[];
  /** Forks of the chain's sessions that are on the page. */
  readonly forks: readonly SessionRow[];
}

/** The rows of a page grouped by continuation chain, with forks beside their source. */
export function groupRows(rows: readonly SessionRow[]): ListGroup[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const rootOf = (row: SessionRow): SessionRow => {
    const seen = new Set<string>([row.id]);
    let current = row;
    for (;;) {
      const previous = current.continuedFrom === undefined ? undefined : byId.get(current.continuedFrom);
      if (previous === undefined || seen.has(previous.id)) return current;
      seen.add(previous.id);
      current = previous;
    }
  };
  // Each chain from its root forward, through the rows on the page.
  const chains = new Map<string, SessionRow[]>();
  const chainOf = new Map<string, string>();
  for (const row of rows) {
    const root = rootOf(row);
    if (chains.has(root.id)) continue;
    const chain: SessionRow[] = [];
    const seen = new Set<string>();
    for (let link: SessionRow | undefined = root; link !== undefined && !seen.has(link.id);) {
      seen.add(link.id);
      chain.push(link);
      chainOf.set(link.id, root.id);
      const next: SessionRow | undefined = link.continuedTo === undefined ? undefined : byId.get(link.continuedTo);
      link = next?.continuedFrom === link.id ? next : undefined;
    }
    chains.set(root.id, chain);
  }
  // Rows a chain walk did not reach (a link on one side only) stand alone.
  for (const row of rows)
    if (!chainOf.has(row.id)) {
      chains.set(row.id, [row]);
      chainOf.set(row.id, row.id);
    }
  const forks = new Map<string, SessionRow[]>();
  const placedAsFork = new Set<string>();
  for (const row of rows) {
    const source = row.forkedFrom?.sessionId;
    const sourceChain = source === undefined ? undefined : chainOf.get(source);
    const ownChain = chainOf.get(row.id);
    // A fork that starts a chain of its own is shown under its source (its chain with it).
    if (sourceChain === undefined || ownChain === sourceChain || (chains.get(ownChain as string)?.length ?? 0) > 1)
      continue;
    const list = forks.get(sourceChain) ?? [];
    list.push(row);
    forks.set(sourceChain, list);
    placedAsFork.add(row.id);
  }
  const groups: ListGroup[] = [];
  const placed = new Set<string>();
  for (const row of rows) {
    const root = chainOf.get(row.id) as string;
    if (placed.has(root) || placedAsFork.has(row.id)) continue;
    placed.add(root);
    groups.push({ chain: chains.get(root) ?? [row], forks: forks.get(root) ?? [] });
  }
  return groups;
}
