/**
 * The session list: search (ids, titles, users, agents), filters by user, agent and activity,
 * each session's title, message and token counts, continuation chains grouped and forks beside
 * their source.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type ListFilters } from './api.js';
import { groupRows, type ListGroup } from './chains.js';
import { formatAge, formatCount, formatTokens } from './format.js';
import { sessionHref } from './router.js';
import type { SessionRow } from './types.js';

/** Activity filters: how recent a session's last change must be. */
const ACTIVITY: ReadonlyArray<{ readonly value: string; readonly label: string; readonly ms?: number }> = [
  { value: 'any', label: 'Any time' },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
];

/** Waits until typing pauses before searching. */
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
        <span class="session-title">{row.title ?? row.id}</span>
        {role !== undefined && <span class="badge">{role}</span>}
      </a>
      <span class="session-meta">
        <span class="mono">{row.id}</span>
        {row.userId !== undefined && <span>user {row.userId}</span>}
        {row.agentId !== undefined && <span>agent {row.agentId}</span>}
        <span>{formatCount(row.messageCount)} messages</span>
        <span>{formatTokens(row.tokenCount)} tokens</span>
        <span title={row.updatedAt}>{formatAge(row.updatedAt)}</span>
      </span>
    </li>
  );
}

function Group({ group }: { readonly group: ListGroup }) {
  const single = group.chain.length === 1 && group.forks.length === 0;
  if (single) return <Row row={group.chain[0] as SessionRow} />;
  return (
    <li class="chain" data-testid="chain">
      <span class="chain-label">
        {group.chain.length > 1 ? `Continuation chain · ${group.chain.length} sessions` : 'Session and forks'}
      </span>
      <ol class="chain-members">
        {group.chain.map((row, i) => (
          <Row key={row.id} row={row} {...(group.chain.length > 1 ? { role: `part ${i + 1}` } : {})} />
        ))}
        {group.forks.map((row) => (
          <Row key={row.id} row={row} role={`fork of ${row.forkedFrom?.sessionId ?? ''}`} />
        ))}
      </ol>
    </li>
  );
}

/** The list view. */
export function SessionList({ onUnauthorized }: { readonly onUnauthorized: (error: unknown) => void }) {
  const [q, setQ] = useState('');
  const [userId, setUserId] = useState('');
  const [agentId, setAgentId] = useState('');
  const [activity, setActivity] = useState('any');
  const [rows, setRows] = useState<readonly SessionRow[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState<'loading' | 'idle' | 'error'>('loading');
  const [error, setError] = useState<string | undefined>(undefined);
  const filters = useDebounced({ q, userId, agentId, activity }, 250);

  const query = useMemo((): ListFilters => {
    const since = ACTIVITY.find((option) => option.value === filters.activity)?.ms;
    return {
      ...(filters.q.trim() === '' ? {} : { q: filters.q.trim() }),
      ...(filters.userId.trim() === '' ? {} : { userId: filters.userId.trim() }),
      ...(filters.agentId.trim() === '' ? {} : { agentId: filters.agentId.trim() }),
      ...(since === undefined ? {} : { updatedAfter: new Date(Date.now() - since).toISOString() }),
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

  const groups = useMemo(() => groupRows(rows), [rows]);
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
