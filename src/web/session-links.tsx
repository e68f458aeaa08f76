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

/** Related sessions asked for when a view opens, at most: a fork's source and the newest forks (as many as a list group shows). */
const MAX_CHECKED = 21;

/**
 * Which of `ids` are known to be gone: each asked for once (the first `MAX_CHECKED`), and a 404
 * tells it is gone; until answered, or after another failure, a link stays a link.
 */
function useGone(ids: readonly string[]): ReadonlySet<string> {
  const [gone, setGone] = useState<ReadonlySet<string>>(new Set());
  const key = ids.slice(0, MAX_CHECKED).join('\n');
  useEffect(() => {
    setGone(new Set());
    if (key === '') return undefined;
    let current = true;
    for (const id of key.split('\n'))
      api.summary(id).then(
        () => undefined,
        (error: unknown) => {
          if (current && error instanceof ApiError && error.status === 404) setGone((known) => new Set([...known, id]));
        },
      );
    return () => {
      current = false;
    };
  }, [key]);
  return gone;
}

/** The link from a fork to its source, opened at the message the fork was taken at (when its sequence number is known). */
function ForkedFromLink({ from, gone }: { readonly from: ForkedFrom; readonly gone: boolean }) {
  let at = '';
  if (from.seq !== undefined) at = ` at message #${from.seq}`;
  else if (from.messageId !== undefined) at = ` at ${from.messageId}`;
  const text = `← fork of ${from.sessionId}${at}`;
  if (gone) return <Gone testId="forked-from" text={text} />;
  return (
    <a href={sessionHref(from.sessionId, from.seq)} data-testid="forked-from" rel="up">
      {text}
    </a>
  );
}

/** The session's own forks, oldest first (those gone shown as such). */
function ForkLinks({ forks, gone }: { readonly forks: readonly string[]; readonly gone: ReadonlySet<string> }) {
  return (
    <span class="forks-nav" data-testid="forks">
      <span id="forks-label">
        {forks.length} fork{forks.length === 1 ? '' : 's'}:
      </span>
      <ul class="inline-list" aria-labelledby="forks-label">
        {forks.map((fork) => (
          <li key={fork}>
            {gone.has(fork) ? (
              <Gone testId="fork-gone" text={fork} />
            ) : (
              <a href={sessionHref(fork)} data-testid="fork-link" aria-label={`Fork ${fork}`}>
                {fork}
              </a>
            )}
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
  const { continuedFrom, continuedTo, forkedFrom, forks = [] } = row;
  // The source first, then the newest forks: the ones a person is likeliest to follow.
  const gone = useGone([...(forkedFrom === undefined ? [] : [forkedFrom.sessionId]), ...[...forks].reverse()]);
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
      {forkedFrom !== undefined && <ForkedFromLink from={forkedFrom} gone={gone.has(forkedFrom.sessionId)} />}
      {forks.length > 0 && <ForkLinks forks={forks} gone={gone} />}
      {stats !== undefined && stats.chain.ids.length > 1 && <ChainNav id={row.id} ids={stats.chain.ids} />}
    </nav>
  );
}
