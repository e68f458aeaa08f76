/**
 * A session as a transcript for people: a header with owner, version and continuation links, then
 * one entry per message with its sequence number, category and role; each tool call is followed by
 * its result (wherever that result sits in the session), so a result is never shown apart from its
 * call unless its call is outside the range shown or missing.
 * @module
 */
import type { Message } from '../message/message.js';
import { describePart } from '../session/format-history.js';
import type { Session } from '../session/session.js';
import { linksOfMetadata, type SessionLinks as StoredLinks } from '../store/links.js';
import type { Output, Style } from './output.js';

/** The continuation and fork links a session's metadata holds. */
export type SessionLinks = StoredLinks & { readonly continuationIndex?: number };

/** The links of `session` (only those it has): those of its list row, and its depth in its chain. */
export function linksOf(session: Session): SessionLinks {
  const index = session.metadata.continuationIndex;
  return {
    ...linksOfMetadata(session.metadata),
    ...(typeof index === 'number' ? { continuationIndex: index } : {}),
  };
}

/** The text of a message, parts joined. */
export function messageText(message: Message): string {
  return typeof message.content === 'string' ? message.content : message.content.map(describePart).join(' ');
}

function clip(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}

const ROLE_STYLE: Record<Message['role'], Style> = {
  system: 'magenta',
  user: 'green',
  assistant: 'cyan',
  tool: 'yellow',
};

/** Options of `writeTranscript`. */
export interface TranscriptOptions {
  /** Longest text shown per entry. */
  readonly maxChars: number;
}

/** The sequence number shown for the message at `index` (its own, or its position for a session file without them). */
export function seqOf(message: Message, index: number): number {
  return message.seq ?? index + 1;
}

/** Writes the transcript of `shown` (a part of `session`'s messages) to `output`. */
export async function writeTranscript(
  output: Output,
  session: Session,
  shown: readonly Message[],
  options: TranscriptOptions,
): Promise<void> {
  const all = session.messages;
  const header = [
    output.style('bold', `session ${session.id}`),
    session.userId === undefined ? '' : `user ${session.userId}`,
    session.agentId === undefined ? '' : `agent ${session.agentId}`,
    `version ${session.version}`,
    `${all.length} messages`,
    all.length === shown.length ? '' : `(showing ${shown.length})`,
  ];
  await output.line(header.filter((part) => part !== '').join('  '));
  const links = linksOf(session);
  if (links.continuedFrom !== undefined)
    await output.line(
      `continues ${links.continuedFrom}${links.continuationIndex === undefined ? '' : ` (link ${links.continuationIndex} of its chain)`}`,
    );
  if (links.continuedTo !== undefined) await output.line(`continued in ${links.continuedTo}`);
  if (links.forkedFrom !== undefined) {
    const { sessionId, messageId, seq } = links.forkedFrom;
    const at = messageId === undefined ? '' : ` at message ${messageId}${seq === undefined ? '' : ` (#${seq})`}`;
    await output.line(`forked from ${sessionId}${at}`);
  }
  if (links.forks !== undefined) await output.line(`forks: ${links.forks.join(', ')}`);
  await output.line('');
  await writeEntries(output, all, shown, options);
}

/**
 * Writes one entry per message of `shown` (a part of `all`, the messages in order), each tool
 * call followed by its result wherever in `all` it sits.
 */
export async function writeEntries(
  output: Output,
  all: readonly Message[],
  shown: readonly Message[],
  options: TranscriptOptions,
): Promise<void> {
  const position = new Map(all.map((message, index) => [message, index]));
  const results = new Map<string, Message>();
  for (const message of all)
    if (message.role === 'tool' && message.toolCallId !== undefined && !results.has(message.toolCallId))
      results.set(message.toolCallId, message);
  const allCalls = new Set<string>();
  for (const message of all) for (const call of message.toolCalls ?? []) allCalls.add(call.id);
  const shownCalls = new Set<string>();
  for (const message of shown) for (const call of message.toolCalls ?? []) shownCalls.add(call.id);

  const label = (message: Message): string => {
    const seq = `#${seqOf(message, position.get(message) ?? 0)}`.padEnd(6);
    return `${output.style('dim', seq)} ${output.style(ROLE_STYLE[message.role], `${message.category}/${message.role}`.padEnd(20))}`;
  };
  for (const message of shown) {
    if (message.role === 'tool') {
      // A result whose call is shown was printed with it.
      if (
        message.toolCallId !== undefined &&
        shownCalls.has(message.toolCallId) &&
        results.get(message.toolCallId) === message
      )
        continue;
      const callPlace =
        message.toolCallId === undefined
          ? 'no call id'
          : allCalls.has(message.toolCallId)
            ? `its call ${message.toolCallId} is not shown`
            : `orphan: no call ${message.toolCallId}`;
      await output.line(`${label(message)} ← ${clip(messageText(message), options.maxChars)} (${callPlace})`);
      continue;
    }
    const text = messageText(message);
    if (text.trim().length > 0 || (message.toolCalls?.length ?? 0) === 0)
      await output.line(`${label(message)} ${clip(text, options.maxChars)}`);
    else await output.line(label(message).trimEnd());
    for (const call of message.toolCalls ?? []) {
      await output.line(
        `       → ${output.style('bold', call.name)} ${clip(call.arguments, options.maxChars)} ${output.style('dim', `(call ${call.id})`)}`,
      );
      const result = results.get(call.id);
      if (result === undefined) await output.line(`         ${output.style('red', '← no result')}`);
      else {
        const seq = seqOf(result, position.get(result) ?? 0);
        await output.line(
          `         ← ${clip(messageText(result), options.maxChars)} ${output.style('dim', `(#${seq} ${result.category})`)}`,
        );
      }
    }
  }
}
