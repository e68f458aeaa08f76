/**
 * `truncateToolOutputs`: shorten tool results longer than `maxTokens` to their head and tail around
 * a marker saying how much was cut. The message keeps its id and its place, so tool exchanges stay
 * whole; results in the most recent turns (which the model is still working with) are left alone.
 * @module
 */
import { copyRange } from '../freeze.js';
import { Message, type MessageInput } from '../message/message.js';
import type { Content, ContentPart, JsonObject } from '../message/schema.js';
import type { TokenCounter } from '../tokens/counter.js';
import { invalidOption, nonNegativeInteger, optionsObject, positiveInteger } from './options.js';
import { changed, prepare, turnsOf, unchanged, type Prepared } from './report.js';
import type { CompactionInput, CompactionResult, SyncCompactor } from './types.js';

/** Options of `truncateToolOutputs`. */
export interface TruncateToolOutputsOptions {
  /** Longest tool result kept whole, in tokens (message overhead included). */
  maxTokens: number;
  /** Recent turns whose tool results are never truncated. @default 1 */
  keepRecentTurns?: number;
  /**
   * Text put where content was cut: a template with `{tokens}`, or a function of the tokens cut.
   * @default '[… {tokens} tokens truncated …]'
   */
  marker?: string | ((truncatedTokens: number) => string);
}

/** What `truncateToolOutputs` records in `metadata.truncated`. */
interface TruncatedMark {
  readonly originalTokens: number;
  readonly maxTokens: number;
}

const DEFAULT_MARKER = '[… {tokens} tokens truncated …]';

function markOf(message: Message): TruncatedMark | undefined {
  const mark = message.metadata.truncated;
  if (typeof mark !== 'object' || mark === null || Array.isArray(mark)) return undefined;
  const { originalTokens, maxTokens } = mark as Record<string, unknown>;
  return typeof originalTokens === 'number' && typeof maxTokens === 'number'
    ? { originalTokens, maxTokens }
    : undefined;
}

/** True when message `i` is a result longer than `max` that was not already truncated to `max` or less. */
function eligible(message: Message, count: number, max: number): boolean {
  if (message.role !== 'tool' || count <= max) return false;
  const mark = markOf(message);
  return mark === undefined || mark.maxTokens > max;
}

/** Slices that never split a surrogate pair. */
function head(text: string, chars: number): string {
  let end = Math.min(text.length, chars);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

function tail(text: string, chars: number): string {
  let start = Math.max(0, text.length - chars);
  const code = text.charCodeAt(start);
  if (start < text.length && code >= 0xdc00 && code <= 0xdfff) start += 1;
  return text.slice(start);
}

/** The head and tail of `text` that fit in `budget` tokens (a few proportional guesses, then nothing). */
function cut(
  text: string,
  tokens: number,
  budget: number,
  counter: TokenCounter,
): { head: string; tail: string; tokens: number } {
  let chars = Math.floor((text.length * budget) / Math.max(1, tokens));
  for (let attempt = 0; attempt < 8 && chars > 0; attempt++) {
    const first = head(text, Math.ceil(chars / 2));
    const last = tail(text, Math.floor(chars / 2));
    const kept = counter.countText(first) + counter.countText(last);
    if (kept <= budget) return { head: first, tail: last, tokens: kept };
    chars = Math.floor(((chars * budget) / kept) * 0.9);
  }
  return { head: '', tail: '', tokens: 0 };
}

function textOf(content: Content): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The content with its text replaced by `text` (parts: one text part where the first was, others kept). */
function withText(content: Content, text: string): Content {
  if (typeof content === 'string') return text;
  const parts: ContentPart[] = [];
  let placed = false;
  for (const part of content) {
    if (part.type !== 'text') parts.push(part);
    else if (!placed) {
      parts.push({ type: 'text', text });
      placed = true;
    }
  }
  if (!placed) parts.unshift({ type: 'text', text });
  return parts;
}

/** A truncated copy of `message` (same id) within `max` tokens if possible, or undefined when it would not shrink. */
function truncate(
  message: Message,
  count: number,
  max: number,
  counter: TokenCounter,
  marker: (tokens: number) => string,
): { message: Message; tokens: number } | undefined {
  const text = textOf(message.content);
  const textTokens = counter.countText(text);
  const original = markOf(message)?.originalTokens ?? textTokens;
  const fixed = count - textTokens;
  let budget = max - fixed - counter.countText(`\n${marker(original)}\n`);
  for (let attempt = 0; attempt < 4; attempt++) {
    const kept = budget > 0 ? cut(text, textTokens, budget, counter) : { head: '', tail: '', tokens: 0 };
    const label = marker(Math.max(0, original - kept.tokens));
    const shortened = [kept.head, label, kept.tail].filter((piece) => piece.length > 0).join('\n');
    const metadata: JsonObject = { ...message.metadata, truncated: { originalTokens: original, maxTokens: max } };
    const content = withText(message.content, shortened) as MessageInput['content'];
    // Message.with drops the cached `tokens` count of the old content.
    const next = Message.with(message, { content, metadata });
    const tokens = counter.countMessage(next);
    if (tokens <= max || kept.tokens === 0) return tokens < count ? { message: next, tokens } : undefined;
    budget -= tokens - max + 1;
  }
  return undefined;
}

function markerFunction(factory: string, marker: unknown): (tokens: number) => string {
  if (marker === undefined) return (tokens) => DEFAULT_MARKER.replace('{tokens}', String(tokens));
  if (typeof marker === 'string' && marker.length > 0) return (tokens) => marker.replace('{tokens}', String(tokens));
  if (typeof marker === 'function') return (tokens) => String((marker as (tokens: number) => unknown)(tokens));
  throw invalidOption(factory, 'marker', 'a non-empty string or a function', marker);
}

/** Index from which tool results are protected (the start of the last `keep` turns). */
function protectedFrom(prepared: Prepared, keep: number): number {
  if (keep === 0) return prepared.messages.length;
  const cuts = turnsOf(prepared).cuts;
  // No turn boundary at all (no user message, or the only ones sit inside a tool exchange): the
  // whole history is the latest turn, which the model is still working with.
  if (cuts.length === 0) return 0;
  return cuts[Math.max(0, cuts.length - keep)] as number;
}

/** Shortens tool results longer than `maxTokens` (outside the last `keepRecentTurns` turns) to head, marker and tail. */
export function truncateToolOutputs(options: TruncateToolOutputsOptions): SyncCompactor {
  const name = 'truncateToolOutputs';
  optionsObject(name, options);
  const max = positiveInteger(name, 'maxTokens', options.maxTokens);
  const keep =
    options.keepRecentTurns === undefined ? 1 : nonNegativeInteger(name, 'keepRecentTurns', options.keepRecentTurns);
  const marker = markerFunction(name, options.marker);

  function firstEligible(prepared: Prepared, end: number): number {
    for (let i = 0; i < end; i++)
      if (eligible(prepared.messages[i] as Message, prepared.counts[i] as number, max)) return i;
    return -1;
  }

  return Object.freeze({
    name,
    shouldCompact(input: CompactionInput): boolean {
      const prepared = prepare(input);
      // The structural pass only runs when some result is too long at all.
      return (
        firstEligible(prepared, prepared.messages.length) >= 0 &&
        firstEligible(prepared, protectedFrom(prepared, keep)) >= 0
      );
    },
    compact(input: CompactionInput): CompactionResult {
      const prepared = prepare(input);
      const end = firstEligible(prepared, prepared.messages.length) < 0 ? 0 : protectedFrom(prepared, keep);
      let out: Message[] | undefined;
      let modified = 0;
      let saved = 0;
      let reachedTarget = true;
      for (let i = 0; i < end; i++) {
        const message = prepared.messages[i] as Message;
        const count = prepared.counts[i] as number;
        if (!eligible(message, count, max)) continue;
        const shorter = truncate(message, count, max, prepared.counter, marker);
        if (shorter === undefined || shorter.tokens > max) reachedTarget = false;
        if (shorter === undefined) continue;
        out ??= copyRange(prepared.messages);
        out[i] = shorter.message;
        modified += 1;
        saved += count - shorter.tokens;
      }
      if (out === undefined) return unchanged(prepared.messages, name, prepared.total, reachedTarget);
      return changed({
        messages: out,
        strategy: name,
        removed: { count: 0, tokens: 0 },
        modified: { count: modified, tokensSaved: saved },
        tokensBefore: prepared.total,
        reachedTarget,
      });
    },
  });
}
