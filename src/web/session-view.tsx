/**
 * The session view: its header with continuation and fork links, the token chart, the stats panel
 * and the messages in a virtualized list. It opens on the newest messages (the list row and the
 * tail, two small requests whatever the session's length), at the start of the newest turn (the
 * user message that began it at the top of the pane), then fetches the chart, the stats and
 * the map of sequence numbers; older messages are fetched by sequence range as they scroll into
 * view. Appends by any process arrive over server-sent events. A LangGraph thread's conversation
 * opens on the thread at its newest checkpoint (what the graph holds), with a toggle to its full
 * append log.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import { NotFound } from './app.js';
import { formatAge, formatCountOf, formatTokens } from './format.js';
import { Heights } from './heights.js';
import { LangGraphThread } from './langgraph-thread.js';
import { followSession } from './live.js';
import { MessageRow, PendingRow, type RowContext } from './message-row.js';
import { CHUNK, MessageWindow } from './message-window.js';
import { sessionHref } from './router.js';
import { SessionLinks } from './session-links.js';
import { KindBadge } from './kind-badge.js';
import { isKnowledge, titleOf } from './session-title.js';
import { StatsPanel } from './stats-panel.js';
import { useDark } from './theme.js';
import { TokenChart } from './token-chart.js';
import type { Message, SessionRow, SessionStats, ThreadView, Timeline } from './types.js';
import { VirtualList, type VirtualListHandle } from './virtual-list.js';

/** Height a message row is taken to have until it is measured. */
const ESTIMATED_ROW = 84;

/** Messages of the first request: the newest two chunks. */
const TAIL = 2 * CHUNK;

/** Views refreshed at most this often while messages arrive live. */
const REFRESH_MS = 1500;

interface Loaded {
  readonly row: SessionRow;
  readonly window: MessageWindow;
  readonly heights: Heights;
  /** The row the list opens with at its top: the start of the newest turn. */
  readonly start: number;
  /** Which opening this is: a history read again (after a compaction) is a new list. */
  readonly generation: number;
}

/**
 * The position of the message that began the newest turn among `tail` (the newest messages, from
 * `first` on): the last user message; the newest message when the tail holds none (a long run of
 * tool calls), so that at least its header is in view.
 */
function newestTurnStart(tail: readonly Message[], first: number): number {
  for (let i = tail.length - 1; i >= 0; i--) if (tail[i]?.role === 'user') return first + i;
  return first + Math.max(0, tail.length - 1);
}

/** The view of session `id` (opened at message `seq`, when given). */
export function SessionView(props: {
  readonly id: string;
  readonly seq?: number;
  readonly onUnauthorized: (error: unknown) => void;
}) {
  const { id, onUnauthorized } = props;
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined);
  const [missing, setMissing] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [timeline, setTimeline] = useState<Timeline | undefined>(undefined);
  const [stats, setStats] = useState<SessionStats | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [targetSeq, setTargetSeq] = useState<number | undefined>(props.seq);
  const [live, setLive] = useState<'connecting' | 'live' | 'deleted'>('connecting');
  const [thread, setThread] = useState<ThreadView | undefined>(undefined);
  const [showLog, setShowLog] = useState(false);
  /** The checkpoint asked for (`undefined`: the thread's newest, followed as the graph goes on). */
  const checkpoint = useRef<string | undefined>(undefined);
  const dark = useDark();
  const handle = useRef<VirtualListHandle | undefined>(undefined);
  const generation = useRef(0);

  const fail = useCallback(
    (error: unknown) => {
      onUnauthorized(error);
      if (error instanceof ApiError && error.status === 404) setMissing(true);
      else setFailure(error instanceof Error ? error.message : String(error));
    },
    [onUnauthorized],
  );

  /** The chart, the stats and the map of sequence numbers (each needs the whole history on the server). */
  const refreshViews = useCallback(
    (window: MessageWindow) => {
      const asked = generation.current;
      api.timeline(id).then((answer) => {
        if (asked !== generation.current) return;
        window.setRuns(answer.seqRuns);
        setTimeline(answer);
        setVersion((n) => n + 1);
      }, fail);
      api.stats(id).then((answer) => asked === generation.current && setStats(answer), fail);
    },
    [id, fail],
  );

  /** Opens (or reopens, after a compaction) the session at its newest messages. */
  const open = useCallback(async () => {
    const asked = ++generation.current;
    try {
      const [row, tail, answer] = await Promise.all([
        api.summary(id),
        api.messages(id, { limit: TAIL }),
        api.thread(id, checkpoint.current),
      ]);
      if (asked !== generation.current) return;
      setThread(answer.thread);
      const count = Math.max(row.messageCount, tail.messages.length);
      const window = new MessageWindow(count);
      const first = count - tail.messages.length;
      window.put(first, tail.messages, tail.tokenCounts);
      setLoaded({
        row,
        window,
        heights: new Heights(count, ESTIMATED_ROW),
        start: newestTurnStart(tail.messages, first),
        generation: asked,
      });
      setVersion((n) => n + 1);
      // After the first messages are on screen: nothing here delays them.
      setTimeout(() => refreshViews(window), 0);
    } catch (error) {
      if (asked === generation.current) fail(error);
    }
  }, [id, fail, refreshViews]);

  useEffect(() => {
    void open();
  }, [open]);

  // Live updates: appends are added in place; anything else reopens the session.
  useEffect(() => {
    if (loaded === undefined) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refreshSoon = (): void => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        refreshViews(loaded.window);
        if (checkpoint.current === undefined)
          api.thread(id).then((answer) => checkpoint.current === undefined && setThread(answer.thread), fail);
        api
          .summary(id)
          .then((row) => setLoaded((current) => (current === undefined ? current : { ...current, row })), fail);
      }, REFRESH_MS);
    };
    const stop = followSession(id, {
      ready: (current) => {
        setLive('live');
        if (current !== loaded.row.version) refreshSoon();
      },
      appended: (messages: readonly Message[], _version, tokenCounts) => {
        if (loaded.window.append(messages, tokenCounts) === 0) return;
        loaded.heights.resize(loaded.window.count);
        setVersion((n) => n + 1);
        refreshSoon();
      },
      replaced: () => void open(),
      deleted: () => setLive('deleted'),
    });
    return () => {
      stop();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [loaded?.window, id]);

  /** Fetches the chunks of the rows in view that the page does not hold. */
  const onVisible = useCallback(
    (first: number, last: number) => {
      if (loaded === undefined) return;
      const { window } = loaded;
      for (const chunk of window.missing(first - CHUNK / 2, last + CHUNK / 2)) {
        const range = window.rangeOf(chunk);
        if (range === undefined) continue;
        window.setLoading(chunk, true);
        const asked = generation.current;
        api
          .messages(id, range)
          .then((answer) => {
            if (asked !== generation.current) return;
            const end = Math.min(window.count, (chunk + 1) * CHUNK);
            window.put(end - answer.messages.length, answer.messages, answer.tokenCounts);
            setVersion((n) => n + 1);
          }, fail)
          .finally(() => window.setLoading(chunk, false));
      }
    },
    [loaded, id, fail],
  );

  /** The text of the message with sequence number `seq` (a turn's first, for the chart's hover). */
  const firstMessageOf = useCallback(
    async (seq: number): Promise<string | undefined> => {
      const { messages } = await api.messages(id, { afterSeq: seq - 1, beforeSeq: seq + 1, limit: 1 });
      const content = messages[0]?.content;
      if (content === undefined) return undefined;
      return typeof content === 'string'
        ? content
        : content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
    },
    [id],
  );

  /** Shows the thread at checkpoint `id` (`undefined`: its newest). */
  const showCheckpoint = useCallback(
    (wanted: string | undefined) => {
      api.thread(id, wanted).then((answer) => {
        checkpoint.current = wanted;
        setThread(answer.thread);
      }, fail);
    },
    [id, fail],
  );

  const jump = useCallback(
    (index: number) => {
      const seq = loaded?.window.seqAt(index);
      setTargetSeq(seq);
      handle.current?.scrollToIndex(index);
      if (seq !== undefined) history.replaceState(null, '', sessionHref(id, seq));
    },
    [loaded, id],
  );

  // A link to a message: go there once the map of sequence numbers tells where it is.
  useEffect(() => {
    if (props.seq === undefined || loaded === undefined || timeline === undefined) return;
    const index = loaded.window.indexOfSeq(props.seq);
    if (index !== undefined) handle.current?.scrollToIndex(index);
  }, [timeline !== undefined, loaded?.window]);

  const context = useMemo((): RowContext | undefined => {
    if (loaded === undefined) return undefined;
    const { window } = loaded;
    return {
      resultOf: (callId) => window.resultOf(callId),
      foldedIntoCall: (message) =>
        message.toolCallId !== undefined && window.callIndex(message.toolCallId) !== undefined,
      expanded,
      toggle: (callId) =>
        setExpanded((current) => {
          const next = new Set(current);
          if (next.has(callId)) next.delete(callId);
          else next.add(callId);
          return next;
        }),
      ...(targetSeq === undefined ? {} : { targetSeq }),
      gone: new Set(stats?.chain.missing ?? []),
    };
  }, [loaded, expanded, targetSeq, version, stats]);

  if (missing) return <NotFound what={`No session ${id} (or not yours to see).`} />;
  if (failure !== undefined)
    return (
      <p role="alert" class="error">
        {failure}
      </p>
    );
  if (loaded === undefined || context === undefined) return <p class="muted">Opening {id}…</p>;
  const { row, window, heights, start } = loaded;
  return (
    <div class="session-view" data-testid="session-view" data-session-id={id}>
      <header class="session-head">
        <h1>
          {titleOf(row)}
          <KindBadge row={row} />
        </h1>
        {isKnowledge(row) && (
          <p class="muted" data-testid="knowledge-note">
            What active memory was asked to remember for {row.userId ?? 'this user'}: recall searches it with the user’s
            other sessions.
          </p>
        )}
        <p class="session-meta">
          <span class="mono">{row.id}</span>
          {row.userId !== undefined && <span>user {row.userId}</span>}
          {row.agentId !== undefined && <span>agent {row.agentId}</span>}
          <span data-testid="message-count">{formatCountOf(window.count, 'message')}</span>
          <span>{formatTokens(row.tokenCount)} tokens</span>
          <span>version {row.version}</span>
          <span title={row.updatedAt}>updated {formatAge(row.updatedAt)}</span>
          <span class={`live ${live}`} data-testid="live" aria-live="polite">
            {live === 'live' ? 'live' : live === 'deleted' ? 'deleted' : 'connecting…'}
          </span>
        </p>
        <SessionLinks row={row} stats={stats} />
        {thread !== undefined && (
          <p class="thread-toggle">
            <button
              type="button"
              data-testid="thread-toggle"
              aria-pressed={showLog}
              onClick={() => setShowLog((current) => !current)}
            >
              {showLog
                ? 'Show the LangGraph thread at its checkpoint'
                : `Show the full log (${formatCountOf(window.count, 'message')})`}
            </button>
          </p>
        )}
      </header>
      {thread !== undefined && !showLog ? (
        <LangGraphThread thread={thread} gone={context.gone} onCheckpoint={showCheckpoint} />
      ) : (
        <>
          {timeline !== undefined ? (
            <TokenChart timeline={timeline} onJump={jump} dark={dark} firstMessageOf={firstMessageOf} />
          ) : (
            <p class="muted card">Counting tokens…</p>
          )}
          <div class="session-body">
            <VirtualList
              key={loaded.generation}
              initialIndex={start}
              count={window.count}
              heights={heights}
              version={version}
              handle={handle}
              label={`Messages of ${id}`}
              onVisible={onVisible}
              renderRow={(index) => {
                const message = window.get(index);
                return message === undefined ? (
                  <PendingRow index={index} />
                ) : (
                  <MessageRow message={message} tokens={window.tokensAt(index)} context={context} />
                );
              }}
            />
            {stats !== undefined && <StatsPanel stats={stats} />}
          </div>
        </>
      )}
    </div>
  );
}
