/**
 * One message of the session view, coloured by category. An assistant message's tool calls are
 * folded together with their results: one line each, expanded to the arguments and the output
 * pretty-printed; the result messages themselves then show as a line that points to the call.
 * Parts chatstate does not model (raw provider parts) are shown as such. Content is always text
 * to the page (never markup): whatever a message holds, it cannot run in the page.
 */
import { formatCount, prettyJson, prettyJsonText, preview } from './format.js';
import { sessionHref } from './router.js';
import type { ContentPart, Message } from './types.js';

/** What a row needs beside its message. */
export interface RowContext {
  /** The result message of tool call `id`, when the page holds it. */
  readonly resultOf: (id: string) => Message | undefined;
  /** Whether the call that `message` (a tool result) answers is held, so the result shows with it. */
  readonly foldedIntoCall: (message: Message) => boolean;
  readonly expanded: ReadonlySet<string>;
  readonly toggle: (callId: string) => void;
  /** The message jumped to (highlighted). */
  readonly targetSeq?: number;
  /** Ids of related sessions known to be gone: a mark that names one is no link. */
  readonly gone: ReadonlySet<string>;
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

function Part({ part }: { readonly part: ContentPart }) {
  switch (part.type) {
    case 'text':
      return <div class="text">{part.text}</div>;
    case 'reasoning':
      return (
        <details class="part reasoning">
          <summary>Reasoning</summary>
          <div class="text">{part.text}</div>
        </details>
      );
    case 'image':
      return <div class="part">Image {part.url ?? `(${part.mediaType ?? 'inline data'})`}</div>;
    case 'file':
      return <div class="part">File {part.filename ?? part.fileId ?? part.url ?? part.mediaType}</div>;
    case 'raw':
      return (
        <details class="part raw" data-testid="raw-part">
          <summary>Raw {part.provider} part</summary>
          <pre class="json">{prettyJson(part.value)}</pre>
        </details>
      );
  }
}

function Content({ content }: { readonly content: Message['content'] }) {
  if (typeof content === 'string') return content === '' ? null : <div class="text">{content}</div>;
  return (
    <>
      {content.map((part, i) => (
        <Part key={i} part={part} />
      ))}
    </>
  );
}

/** The marks of a message: a summary, a continuation marker, a recovery notice. */
function Marks({ message, gone }: { readonly message: Message; readonly gone: ReadonlySet<string> }) {
  const { metadata } = message;
  const marks = [];
  if (metadata.summary === true)
    marks.push(
      <span key="summary" class="mark summary" data-testid="summary-mark">
        Summary
        {typeof metadata.summarizedCount === 'number' ? ` of ${formatCount(metadata.summarizedCount)} messages` : ''}
      </span>,
    );
  if (metadata.transition === true && typeof metadata.continuedFrom === 'string')
    marks.push(
      gone.has(metadata.continuedFrom) ? (
        <span key="transition" class="mark transition gone">
          Continues {metadata.continuedFrom} (gone)
        </span>
      ) : (
        <a key="transition" class="mark transition" href={sessionHref(metadata.continuedFrom)}>
          Continues {metadata.continuedFrom}
        </a>
      ),
    );
  if (typeof metadata.recovery === 'object' && metadata.recovery !== null)
    marks.push(
      <span key="recovery" class="mark recovery">
        Recovery notice
      </span>,
    );
  return marks.length === 0 ? null : <span class="marks">{marks}</span>;
}

function ToolCalls({ message, context }: { readonly message: Message; readonly context: RowContext }) {
  return (
    <ul class="tool-calls">
      {(message.toolCalls ?? []).map((call) => {
        const result = context.resultOf(call.id);
        const open = context.expanded.has(call.id);
        const output = result === undefined ? undefined : textOf(result.content);
        return (
          <li key={call.id} class="tool-pair" data-testid="tool-pair" data-call-id={call.id}>
            <button
              type="button"
              class="tool-toggle"
              aria-expanded={open}
              aria-controls={`call-${call.id}`}
              onClick={() => context.toggle(call.id)}
            >
              <span class="tool-name">{call.name}</span>
              <span class="tool-preview">({preview(call.arguments, 80)})</span>
              <span class="tool-result-size">
                {result === undefined ? '· no result held' : `→ ${formatCount(output?.length ?? 0)} chars`}
              </span>
            </button>
            {open && (
              <div class="tool-detail" id={`call-${call.id}`}>
                <div class="tool-label">Arguments</div>
                <pre class="json" data-testid="tool-arguments">
                  {prettyJsonText(call.arguments)}
                </pre>
                <div class="tool-label">Result{result === undefined ? '' : ` (message #${result.seq})`}</div>
                <pre class="json" data-testid="tool-output">
                  {result === undefined ? 'The result is not loaded or missing.' : prettyJsonText(output ?? '')}
                </pre>
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** A message's tokens, as the server counted them. */
function Tokens({ tokens }: { readonly tokens: number | undefined }) {
  if (tokens === undefined) return null;
  return (
    <span class="msg-tokens" data-testid="message-tokens" title="This message’s tokens (counted as in the chart)">
      {formatCount(tokens)} tokens
    </span>
  );
}

/** A message row, with its tokens when known. */
export function MessageRow({
  message,
  tokens,
  context,
}: {
  readonly message: Message;
  readonly tokens: number | undefined;
  readonly context: RowContext;
}) {
  const folded = message.role === 'tool' && context.foldedIntoCall(message);
  const classes = [
    'msg',
    `cat-${message.category}`,
    `role-${message.role}`,
    folded ? 'folded' : '',
    context.targetSeq === message.seq ? 'target' : '',
  ].join(' ');
  if (folded)
    return (
      <div class={classes} data-seq={message.seq} data-testid="message">
        <span class="seq">#{message.seq}</span> <span class="role">result</span> of{' '}
        <span class="tool-name">{message.name ?? message.toolCallId}</span>
        <span class="muted"> · shown with its call above{tokens === undefined ? '' : ' · '}</span>
        <Tokens tokens={tokens} />
      </div>
    );
  return (
    <div class={classes} data-seq={message.seq} data-testid="message">
      <div class="msg-head">
        <span class="seq">#{message.seq}</span>
        <span class="role">{message.role}</span>
        {message.name !== undefined && <span class="tool-name">{message.name}</span>}
        <span class="category">{message.category.replace('_', ' ')}</span>
        <Marks message={message} gone={context.gone} />
        <Tokens tokens={tokens} />
        <time class="muted" dateTime={message.timestamp}>
          {message.timestamp.replace('T', ' ').slice(0, 19)}
        </time>
      </div>
      <Content content={message.content} />
      {message.toolCalls !== undefined && message.toolCalls.length > 0 && (
        <ToolCalls message={message} context={context} />
      )}
    </div>
  );
}

/** A row whose message is not loaded yet. */
export function PendingRow({ index }: { readonly index: number }) {
  return (
    <div class="msg pending" aria-busy="true">
      <span class="muted">Message {formatCount(index + 1)} loading…</span>
    </div>
  );
}
