/**
 * A session's links to the sessions related to it: the one it continues and the one continuing
 * it, the source it was forked from (opened at the message the fork was taken at), its own forks,
 * and its continuation chain. A related session that no longer exists (or is not the caller's) is
 * shown as gone, not as a link: the chain's missing links come with the statistics, and the fork's
 * source is asked for once when the view opens.
 * @module
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import { sessionHref } from './router.js';
import type { ForkedFrom, SessionRow, SessionStats } from './types.js';

/** Tells that a related session is gone. */
function Gone({ testId, text }: { readonly testId: string; readonly text: string }) {
  return (
    <span class="gone" data-testid={testId} title="This session was deleted, or is not yours to see">
      {text} <span class="muted">(gone)</span>
    </span>
  );
}

/** Whether the session `id` names is known to be gone: `undefined` until answered, or when it cannot be told. */
function useGone(id: string | undefined): boolean | undefined {
  const [gone, setGone] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    setGone(undefined);
    if (id === undefined) return undefined;
    let current = true;
    api.summary(id).then(
      () => current && setGone(false),
      // Only a 404 tells it is gone; another failure leaves the link as it is.
      (error: unknown) => current && setGone(error instanceof ApiError && error.status === 404 ? true : undefined),
    );
    return () => {
      current = false;
    };
  }, [id]);
  return gone;
}

/** The link from a fork to its source, opened at the message the fork was taken at (when its sequence number is known). */
function ForkedFromLink({ from }: { readonly from: ForkedFrom }) {
  const gone = useGone(from.sessionId);
  let at = '';
  if (from.seq !== undefined) at = ` at message #${from.seq}`;
  else if (from.messageId !== undefined) at = ` at ${from.messageId}`;
  const text = `← fork of ${from.sessionId}${at}`;
  if (gone === true) return <Gone testId="forked-from" text={text} />;
  return (
    <a href={sessionHref(from.sessionId, from.seq)} data-testid="forked-from" rel="up">
      {text}
    </a>
  );
}

/** The session's own forks, oldest first. */
function ForkLinks({ forks }: { readonly forks: readonly string[] }) {
  return (
    <span class="forks-nav" data-testid="forks">
      <span id="forks-label">
        {forks.length} fork{forks.length === 1 ? '' : 's'}:
      </span>
      <ul class="inline-list" aria-labelledby="forks-label">
        {forks.map((fork) => (
          <li key={fork}>
            <a href={sessionHref(fork)} data-testid="fork-link" aria-label={`Fork ${fork}`}>
              {fork}
            </a>
          </li>
        ))}
      </ul>
    </span>
  );
}

/** The continuation chain's members by position, the session's own unlinked. */
function ChainNav({ id, ids }: { readonly id: string; readonly ids: readonly string[] }) {
  return (
    <span class="chain-nav" data-testid="chain-nav">
      chain:{' '}
      {ids.map((link, i) =>
        link === id ? (
          <strong key={link} aria-current="page">
            {i + 1}
          </strong>
        ) : (
          <a key={link} href={sessionHref(link)} title={link}>
            {i + 1}
          </a>
        ),
      )}
    </span>
  );
}

/** The links of session `row` (its statistics, once read, tell the chain). */
export function SessionLinks({ row, stats }: { readonly row: SessionRow; readonly stats: SessionStats | undefined }) {
  const missing = new Set(stats?.chain.missing ?? []);
  const { continuedFrom, continuedTo } = row;
  return (
    <nav class="links" aria-label="Related sessions">
      {continuedFrom !== undefined &&
        (missing.has(continuedFrom) ? (
          <Gone testId="continued-from" text={`← continues ${continuedFrom}`} />
        ) : (
          <a href={sessionHref(continuedFrom)} data-testid="continued-from" rel="prev">
            ← continues {continuedFrom}
          </a>
        ))}
      {continuedTo !== undefined &&
        (missing.has(continuedTo) ? (
          <Gone testId="continued-to" text={`continued in ${continuedTo} →`} />
        ) : (
          <a href={sessionHref(continuedTo)} data-testid="continued-to" rel="next">
            continued in {continuedTo} →
          </a>
        ))}
      {row.forkedFrom !== undefined && <ForkedFromLink from={row.forkedFrom} />}
      {row.forks !== undefined && row.forks.length > 0 && <ForkLinks forks={row.forks} />}
      {stats !== undefined && stats.chain.ids.length > 1 && <ChainNav id={row.id} ids={stats.chain.ids} />}
    </nav>
  );
}
