/**
 * A LangGraph thread's page body: the thread at one checkpoint (what its graph's `getState` holds),
 * not the conversation's append log, which keeps every message the thread ever had. Beside the
 * messages: the conversation's messages this checkpoint does not hold, each marked (replaced by an
 * edit, a copy, or on another branch), and the thread's checkpoints, any of which can be shown.
 */
import { useMemo, useState } from 'preact/hooks';
import { formatCount, formatCountOf } from './format.js';
import { MessageRow, type RowContext } from './message-row.js';
import type { ElsewhereMessage, Message, ThreadCheckpoint, ThreadView } from './types.js';

/** What a row of the thread needs: tool results found among `messages`. */
function useRowContext(messages: readonly Message[], gone: ReadonlySet<string>): RowContext {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  return useMemo(() => {
    const results = new Map<string, Message>();
    const calls = new Set<string>();
    for (const message of messages) {
      if (message.role === 'tool' && message.toolCallId !== undefined && !results.has(message.toolCallId))
        results.set(message.toolCallId, message);
      for (const call of message.toolCalls ?? []) calls.add(call.id);
    }
    return {
      resultOf: (callId) => results.get(callId),
      foldedIntoCall: (message) => message.toolCallId !== undefined && calls.has(message.toolCallId),
      expanded,
      toggle: (callId) =>
        setExpanded((current) => {
          const next = new Set(current);
          if (next.has(callId)) next.delete(callId);
          else next.add(callId);
          return next;
        }),
      gone,
    };
  }, [messages, expanded, gone]);
}

/** What a checkpoint is: its step, source and size. */
function about(checkpoint: ThreadCheckpoint): string {
  const parts = [
    checkpoint.step === undefined ? '' : `step ${checkpoint.step}`,
    checkpoint.source ?? '',
    formatCountOf(checkpoint.messageCount, 'message'),
  ];
  return parts.filter((part) => part !== '').join(' · ');
}

const KIND_LABEL: Readonly<Record<ElsewhereMessage['kind'], string>> = {
  replaced: 'Replaced',
  copy: 'Stored again',
  other: 'On another branch, or removed',
};

function ElsewhereRow({ entry, context }: { readonly entry: ElsewhereMessage; readonly context: RowContext }) {
  const label =
    entry.kind === 'other' ? KIND_LABEL.other : `${KIND_LABEL[entry.kind]}: now #${entry.now ?? '?'} in the thread`;
  return (
    <li class={`elsewhere ${entry.kind}`} data-testid="elsewhere-message" data-kind={entry.kind}>
      <span class="mark elsewhere-mark">{label}</span>
      <MessageRow message={entry.message} tokens={undefined} context={context} />
    </li>
  );
}

function CheckpointRow({
  checkpoint,
  onShow,
}: {
  readonly checkpoint: ThreadCheckpoint;
  readonly onShow: (id: string) => void;
}) {
  const marks = [
    checkpoint.current ? 'shown' : '',
    checkpoint.onPath && !checkpoint.current ? 'ancestor' : '',
    checkpoint.tip ? 'branch tip' : '',
  ].filter((mark) => mark !== '');
  return (
    <li
      class={`checkpoint${checkpoint.current ? ' current' : ''}${checkpoint.onPath ? ' on-path' : ''}`}
      data-testid="checkpoint"
      data-checkpoint-id={checkpoint.id}
    >
      <button type="button" class="ghost" disabled={checkpoint.current} onClick={() => onShow(checkpoint.id)}>
        <span class="mono">{checkpoint.id}</span>
      </button>
      <span class="muted">{about(checkpoint)}</span>
      {marks.length > 0 && <span class="checkpoint-marks">{marks.join(', ')}</span>}
    </li>
  );
}

/** The thread at one checkpoint, with its messages elsewhere and its checkpoints. */
export function LangGraphThread(props: {
  readonly thread: ThreadView;
  readonly gone: ReadonlySet<string>;
  /** Shows checkpoint `id` (`undefined`: the newest again). */
  readonly onCheckpoint: (id: string | undefined) => void;
}) {
  const { thread, gone, onCheckpoint } = props;
  const context = useRowContext(thread.messages, gone);
  const elsewhereContext = useRowContext(
    thread.elsewhere.messages.map((entry) => entry.message),
    gone,
  );
  const { checkpoint } = thread;
  const newest = checkpoint !== undefined && checkpoint.id === thread.latest;
  const hidden = thread.messageCount - thread.messages.length;
  return (
    <div class="langgraph-thread" data-testid="thread-view">
      <p class="card thread-note" data-testid="thread-note">
        {checkpoint === undefined ? (
          <>LangGraph thread {thread.threadId}: no checkpoint yet.</>
        ) : (
          <>
            LangGraph thread <span class="mono">{thread.threadId}</span> at checkpoint{' '}
            <span class="mono" data-testid="thread-checkpoint">
              {checkpoint.id}
            </span>{' '}
            ({newest ? 'the newest' : 'not the newest'}; {about(checkpoint)}). The conversation holds{' '}
            {formatCountOf(thread.logCount, 'message')}
            {thread.elsewhere.count > 0
              ? `, ${formatCount(thread.elsewhere.count)} of them not in this checkpoint`
              : ''}
            .
            {!newest && (
              <>
                {' '}
                <button type="button" class="ghost" onClick={() => onCheckpoint(undefined)}>
                  Show the newest
                </button>
              </>
            )}
          </>
        )}
      </p>
      {hidden > 0 && (
        <p class="muted">The first {formatCountOf(hidden, 'message')} of this checkpoint are not shown.</p>
      )}
      <div class="thread-messages" role="list" aria-label={`Messages of thread ${thread.threadId}`}>
        {thread.messages.map((message, index) => (
          <div role="listitem" key={message.id}>
            <MessageRow message={message} tokens={thread.tokenCounts[index]} context={context} />
          </div>
        ))}
      </div>
      {thread.elsewhere.count > 0 && (
        <details class="card thread-elsewhere" data-testid="thread-elsewhere">
          <summary>
            Not in this checkpoint: {formatCountOf(thread.elsewhere.count, 'message')}
            {thread.elsewhere.messages.length < thread.elsewhere.count
              ? ` (the newest ${formatCount(thread.elsewhere.messages.length)} shown)`
              : ''}
          </summary>
          <ul class="elsewhere-list">
            {thread.elsewhere.messages.map((entry) => (
              <ElsewhereRow key={entry.message.id} entry={entry} context={elsewhereContext} />
            ))}
          </ul>
        </details>
      )}
      {thread.checkpoints.length > 0 && (
        <details class="card thread-checkpoints" data-testid="thread-checkpoints">
          <summary>
            Checkpoints, newest first: {formatCount(thread.checkpoints.length)}
            {thread.moreCheckpoints ? ' (the newest only)' : ''},{' '}
            {formatCountOf(thread.checkpoints.filter((each) => each.tip).length, 'branch tip')}
          </summary>
          <ol class="checkpoint-list">
            {thread.checkpoints.map((each) => (
              <CheckpointRow key={each.id} checkpoint={each} onShow={onCheckpoint} />
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
