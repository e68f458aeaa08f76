/**
 * `summarize`: replace the oldest turns by one `context` message written by a caller-supplied
 * summarizer (usually an LLM call). A failed, rejected or empty summary never replaces anything:
 * the history comes back unchanged with a `SUMMARY_FAILED` error in the result.
 * @module
 */
import { CollaboratorError, InvalidInputError, errorMessage, type ChatstateError } from '../errors.js';
import { copyRange } from '../freeze.js';
import { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import { measure } from './budget.js';
import { invalidOption, optionsObject, positiveInteger, targetTokens } from './options.js';
import { changed, prepareTurns, unchanged, type Prepared } from './report.js';
import { moreTurnsThan, windowCut } from './sliding-window.js';
import { aboveTokens, chooseTokenCut } from './token-limit.js';
import type { Turns } from './turns.js';
import type { AsyncCompactor, CompactionInput, CompactionResult, Summarizer } from './types.js';

/** Options of `summarize`: a summarizer and when to use it (a token budget, a number of turns, or both). */
export interface SummarizeOptions {
  /** Writes the summary of the messages about to be dropped. */
  summarizer: Summarizer;
  /** Summarize when the history is above this many tokens. */
  maxTokens?: number;
  /** Summarize down to at most this many tokens. @default Math.floor(0.75 * maxTokens) */
  targetTokens?: number;
  /** Turns always kept verbatim; alone, summarize everything older than them. */
  keepTurns?: number;
}

/** True for a summary message written by `summarize`. */
export function isSummary(message: Message): boolean {
  return message.category === 'context' && message.metadata.summary === true;
}

/** Checks a summarizer option: `MISSING_COLLABORATOR` when absent, `INVALID_ARGUMENT` when not a function. */
export function checkSummarizer(factory: string, summarizer: unknown): Summarizer {
  if (summarizer === undefined || summarizer === null) {
    throw new InvalidInputError(
      'MISSING_COLLABORATOR',
      `${factory} needs a summarizer: pass { summarizer: (messages) => summary }`,
      {
        details: { factory, option: 'summarizer' },
      },
    );
  }
  if (typeof summarizer !== 'function') throw invalidOption(factory, 'summarizer', 'a function', summarizer);
  return summarizer as Summarizer;
}

interface Span {
  /** Unpinned messages before the cut, oldest first. */
  readonly messages: Message[];
  /** Index of the first of them (where the summary goes). */
  readonly start: number;
  readonly cut: number;
  readonly tokens: number;
}

function spanOf(prepared: Prepared, turns: Turns, k: number): Span {
  const cut = turns.cuts[k] as number;
  const messages: Message[] = [];
  let start = -1;
  for (let i = 0; i < cut; i++) {
    if (turns.pinned[i] === 1) continue;
    if (start < 0) start = i;
    messages.push(prepared.messages[i] as Message);
  }
  return { messages, start, cut, tokens: turns.cutTokens[k] as number };
}

/** The history with `span` replaced by `summary` at the span's first position. */
function replaceSpan(prepared: Prepared, turns: Turns, span: Span, summary: Message): Message[] {
  const pinnedBefore = span.cut - span.messages.length;
  const out = copyRange(prepared.messages, span.cut - pinnedBefore - 1);
  let j = 0;
  for (let i = 0; i < span.cut; i++) {
    if (turns.pinned[i] === 1) out[j++] = prepared.messages[i] as Message;
    else if (i === span.start) out[j++] = summary;
  }
  return out;
}

function summaryMetadata(span: Span, summarized: readonly Message[], previous: Message | undefined): JsonObject {
  // A summary of a summary covers everything its predecessor covered.
  const before = previous?.metadata;
  const count = (typeof before?.summarizedCount === 'number' ? before.summarizedCount : 0) + summarized.length;
  const firstId = typeof before?.firstId === 'string' ? before.firstId : (span.messages[0] as Message).id;
  return { summary: true, summarizedCount: count, firstId, lastId: (span.messages.at(-1) as Message).id };
}

/** Replaces the oldest turns by one summary `context` message once the history is too long. */
export function summarize(options: SummarizeOptions): AsyncCompactor {
  const name = 'summarize';
  optionsObject(name, options);
  const summarizer = checkSummarizer(name, options.summarizer);
  const max = options.maxTokens === undefined ? undefined : positiveInteger(name, 'maxTokens', options.maxTokens);
  if (max === undefined && options.targetTokens !== undefined) {
    throw invalidOption(name, 'targetTokens', 'used with maxTokens', options.targetTokens);
  }
  const target = max === undefined ? undefined : targetTokens(name, options.targetTokens, max);
  const keepTurns = options.keepTurns === undefined ? undefined : positiveInteger(name, 'keepTurns', options.keepTurns);
  if (max === undefined && keepTurns === undefined)
    throw invalidOption(name, 'maxTokens or keepTurns', 'given', undefined);

  /** The cut index to summarize up to, or -1, and whether the budget is met. */
  function choose(prepared: Prepared, turns: Turns, input: CompactionInput): { k: number; reachedTarget: boolean } {
    if (max === undefined || target === undefined)
      return { k: windowCut(turns, keepTurns as number), reachedTarget: true };
    const cut = chooseTokenCut(prepared, turns, target, input.lastUsage);
    if (cut.k < 0 || keepTurns === undefined) return cut;
    const limit = windowCut(turns, keepTurns);
    return limit < cut.k ? { k: limit, reachedTarget: false } : cut;
  }

  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean =>
      max !== undefined ? aboveTokens(input, max) : moreTurnsThan(input, keepTurns as number),
    async compact(input: CompactionInput): Promise<CompactionResult> {
      const { prepared, turns } = prepareTurns(input);
      const choice = choose(prepared, turns, input);
      if (choice.k < 0 || turns.cutMessages[choice.k] === 0) {
        // Nothing to summarize: fine when nothing had to go, a miss when the budget is exceeded.
        return unchanged(
          prepared.messages,
          name,
          prepared.total,
          choice.k < 0 ? choice.reachedTarget : target === undefined,
        );
      }
      const span = spanOf(prepared, turns, choice.k);
      const first = span.messages[0] as Message;
      const previous = isSummary(first) ? first : undefined;
      const summarized = Object.freeze(previous === undefined ? span.messages.slice() : span.messages.slice(1));
      if (summarized.length === 0) return unchanged(prepared.messages, name, prepared.total, false);
      const fail = (message: string, cause?: unknown): CompactionResult => {
        const error: ChatstateError = new CollaboratorError(
          'SUMMARY_FAILED',
          `Summary failed, history kept: ${message}`,
          {
            cause,
            details: { messages: summarized.length },
          },
        );
        return unchanged(prepared.messages, name, prepared.total, false, error);
      };
      let text: unknown;
      try {
        text = await summarizer(summarized, {
          ...(previous === undefined ? {} : { previousSummary: Message.text(previous) }),
          ...(input.signal === undefined ? {} : { signal: input.signal }),
        });
      } catch (error) {
        return fail(`the summarizer threw: ${errorMessage(error)}`, error);
      }
      if (typeof text !== 'string') return fail(`the summarizer returned ${typeof text}, not a string`);
      if (text.trim().length === 0) return fail('the summarizer returned an empty summary');
      let summary: Message;
      try {
        summary = Message.context(text, { metadata: summaryMetadata(span, summarized, previous) });
      } catch (error) {
        return fail(`the summary is not a valid message: ${errorMessage(error)}`, error);
      }
      const addedTokens = prepared.counter.countMessage(summary);
      const after = prepared.total - span.tokens + addedTokens;
      // The summary itself costs tokens: the budget is checked again with it, in measured tokens.
      const factor = measure(prepared.counts, prepared.total, input.lastUsage).factor;
      const reachedTarget = choice.reachedTarget && (target === undefined || after * factor <= target);
      return changed({
        messages: replaceSpan(prepared, turns, span, summary),
        strategy: name,
        removed: {
          count: span.messages.length,
          tokens: span.tokens,
          firstId: first.id,
          lastId: (span.messages.at(-1) as Message).id,
        },
        added: [summary],
        addedTokens,
        tokensBefore: prepared.total,
        reachedTarget,
      });
    },
  });
}
