/**
 * The session list: search (ids, titles, users, agents), filters by user, agent and activity,
 * chatstate's internal sessions shown (with their kind) only when asked,
 * each session's title, message and token counts, continuation chains grouped and forks beside
 * their source — across pages: a group's members on pages not loaded are fetched by id.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type ListFilters } from './api.js';
import { groupRows, type ListGroup } from './chains.js';
import { formatAge, formatCountOf, formatTokens } from './format.js';
import { sessionHref } from './router.js';
import { KindBadge } from './kind-badge.js';
import { titleOf } from './session-title.js';
import type { SessionRow } from './types.js';

/** Activity filters: how recent a session's last change must be. */
const ACTIVITY: ReadonlyArray<{ readonly value: string; readonly label: string; readonly ms?: number }> = [
  { value: 'any', label: 'Any time' },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
];

/** Summaries of group members fetched by id at a time. */
const FETCH_BATCH = 16;

/** Summaries fetched by id at most per list (a new search starts again): the list's requests stay bounded. */
const MAX_FETCHED = 400;

/**
 * Waits until typing pauses before searching. `value` must keep its identity while it does not
 * change (a primitive, or an object from `useMemo`): a new object each render would restart the
 * timer on every render, and each settle would render again — a request loop.
 */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function Row({ row, role }: { readonly row: SessionRow; readonly role?: string }) {
  return (
    <li class="session-row" data-testid="session-row" data-session-id={row.id}>
      <a href={sessionHref(row.id)} class="session-link">
        <span class="session-title">{titleOf(row)}</span>
        <KindBadge row={row} />
        {role !== undefined && <span class="badge">{role}</span>}
        {row.damaged !== undefined && (
          <span class="badge damaged" title={row.damaged}>
            damaged · cannot be read
          </span>
        )}
      </a>
      <span class="session-meta">
        <span class="mono">{row.id}</span>
        {row.userId !== undefined && <span>user {row.userId}</span>}
        {row.agentId !== undefined && <span>agent {row.agentId}</span>}
        <span>{formatCountOf(row.messageCount, 'message')}</span>
        <span>{formatTokens(row.tokenCount)} tokens</span>
        <span title={row.updatedAt}>{formatAge(row.updatedAt)}</span>
      </span>
    </li>
  );
}

/** A fork its source still lists that no longer exists (or is not the caller's): no link to follow. */
function GoneRow({ id }: { readonly id: string }) {
  return (
    <li class="session-row gone" data-testid="gone-session" data-session-id={id}>
      <span class="session-title">
        <span class="mono">{id}</span> <span class="muted">(gone: deleted, or not yours to see)</span>
      </span>
    </li>
  );
}

function groupLabel(group: ListGroup): string {
  let title = 'Related sessions';
  if (group.chain.length > 1) title = `Continuation chain · ${group.chain.length} sessions`;
  else if (group.forks.length > 0 || group.gone.length > 0) title = 'Session and forks';
  const parts = [title];
  if (group.forks.length > 0 && group.chain.length > 1)
    parts.push(`${group.forks.length} fork${group.forks.length === 1 ? '' : 's'}`);
  if (group.moreForks > 0) parts.push(`${group.moreForks} more forks in the session view`);
  if (group.pending > 0) parts.push(`loading ${group.pending} more…`);
  return parts.join(' · ');
}

function Group({ group }: { readonly group: ListGroup }) {
  const single = group.chain.length === 1 && group.forks.length === 0 && group.pending === 0 && group.gone.length === 0;
  if (single) return <Row row={group.chain[0] as SessionRow} />;
  return (
    <li class="chain" data-testid="chain" aria-busy={group.pending > 0}>
      <span class="chain-label">{groupLabel(group)}</span>
      <ol class="chain-members">
        {group.chain.map((row, i) => (
          <Row key={row.id} row={row} {...(group.chain.length > 1 ? { role: `part ${i + 1}` } : {})} />
        ))}
        {group.forks.map((row) => (
          <Row key={row.id} row={row} role={`fork of ${row.forkedFrom?.sessionId ?? ''}`} />
        ))}
        {group.gone.map((id) => (
          <GoneRow key={id} id={id} />
        ))}
      </ol>
    </li>
  );
}

/**
 * The list's rows grouped, fetching by id (in bounded batches) the summaries of group members its
 * pages do not hold. `reset` changes with each new list: what was fetched for the last is dropped.
 */
function useGroups(
  rows: readonly SessionRow[],
  reset: unknown,
  onUnauthorized: (error: unknown) => void,
): readonly ListGroup[] {
  const [fetched, setFetched] = useState<ReadonlyMap<string, SessionRow | null>>(new Map());
  const asked = useRef(new Set<string>());
  const generation = useRef(0);
  useEffect(() => {
    generation.current += 1;
    asked.current = new Set();
    setFetched(new Map());
  }, [reset]);
  const grouping = useMemo(() => groupRows(rows, fetched), [rows, fetched]);
  const wanted = grouping.wanted.filter((id) => !asked.current.has(id));
  useEffect(() => {
    const room = MAX_FETCHED - asked.current.size;
    const batch = wanted.slice(0, Math.min(FETCH_BATCH, room));
    if (batch.length === 0) return;
    for (const id of batch) asked.current.add(id);
    const mine = generation.current;
    void Promise.all(
      batch.map((id) =>
        api.summary(id).then(
          (row): [string, SessionRow | null] => [id, row],
          (failure: unknown): [string, SessionRow | null] => {
            onUnauthorized(failure);
            // Gone, not the caller's, or unreachable: the group shows the members it has.
            return [id, null];
          },
        ),
      ),
    ).then((found) => {
      if (mine !== generation.current) return;
      setFetched((current) => new Map([...current, ...found]));
    });
  }, [wanted.join('\n'), fetched]);
  // Past the bound nothing more is fetched: no group says it is still loading.
  if (asked.current.size < MAX_FETCHED) return grouping.groups;
  return grouping.groups.map((group) => ({ ...group, pending: 0 }));
}

/** The list view. */
export function SessionList({ onUnauthorized }: { readonly onUnauthorized: (error: unknown) => void }) {
  const [q, setQ] = useState('');
  const [userId, setUserId] = useState('');
  const [agentId, setAgentId] = useState('');
  const [activity, setActivity] = useState('any');
  const [internal, setInternal] = useState(false);
  const [rows, setRows] = useState<readonly SessionRow[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState<'loading' | 'idle' | 'error'>('loading');
  const [error, setError] = useState<string | undefined>(undefined);
  const typed = useMemo(() => ({ q, userId, agentId, activity, internal }), [q, userId, agentId, activity, internal]);
  const filters = useDebounced(typed, 250);

  const query = useMemo((): ListFilters => {
    const since = ACTIVITY.find((option) => option.value === filters.activity)?.ms;
    return {
      ...(filters.q.trim() === '' ? {} : { q: filters.q.trim() }),
      ...(filters.userId.trim() === '' ? {} : { userId: filters.userId.trim() }),
      ...(filters.agentId.trim() === '' ? {} : { agentId: filters.agentId.trim() }),
      ...(since === undefined ? {} : { updatedAfter: new Date(Date.now() - since).toISOString() }),
      ...(filters.internal ? { kinds: 'all' as const } : {}),
    };
  }, [filters]);

  const load = (more: boolean, signal?: AbortSignal): void => {
    setStatus('loading');
    api
      .list({ ...query, ...(more && cursor !== undefined ? { cursor } : {}) }, signal)
      .then((page) => {
        setRows((previous) => (more ? [...previous, ...page.sessions] : page.sessions));
        setCursor(page.nextCursor);
        setStatus('idle');
      })
      .catch((failure: unknown) => {
        if (signal?.aborted === true) return;
        onUnauthorized(failure);
        setError(failure instanceof Error ? failure.message : String(failure));
        setStatus('error');
      });
  };
  useEffect(() => {
    const controller = new AbortController();
    load(false, controller.signal);
    return () => controller.abort();
  }, [query]);

  const groups = useGroups(rows, query, onUnauthorized);
  return (
    <section class="list-view" aria-labelledby="list-title">
      <h1 id="list-title">Sessions</h1>
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          <span>Search</span>
          <input
            type="search"
            name="q"
            placeholder="id, title, user or agent"
            value={q}
            onInput={(event) => setQ((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          <span>User</span>
          <input
            type="text"
            name="userId"
            value={userId}
            onInput={(event) => setUserId((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          <span>Agent</span>
          <input
            type="text"
            name="agentId"
            value={agentId}
            onInput={(event) => setAgentId((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          <span>Activity</span>
          <select
            name="activity"
            value={activity}
            onChange={(event) => setActivity((event.target as HTMLSelectElement).value)}
          >
            {ACTIVITY.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label class="toggle" title="chatstate's own sessions: knowledge, working memory, LangGraph checkpoint logs, …">
          <input
            type="checkbox"
            name="internal"
            checked={internal}
            onChange={(event) => setInternal((event.target as HTMLInputElement).checked)}
          />
          <span>Show internal sessions</span>
        </label>
      </form>
      {status === 'error' && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul class="sessions" aria-busy={status === 'loading'} data-testid="sessions">
        {groups.map((group) => (
          <Group key={(group.chain[0] as SessionRow).id} group={group} />
        ))}
      </ul>
      {status === 'idle' && rows.length === 0 && (
        <p class="muted" data-testid="empty">
          No sessions match.
        </p>
      )}
      {cursor !== undefined && (
        <button type="button" onClick={() => load(true)} disabled={status === 'loading'}>
          More sessions
        </button>
      )}
    </section>
  );
}
