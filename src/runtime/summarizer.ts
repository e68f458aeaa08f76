/**
 * `modelSummarizer`: a `Summarizer` for `compaction.summarize` built on any `ChatModel`. The
 * messages to summarize are sent as one transcript (tool calls and results included), so any
 * provider accepts them whatever tools the conversation used; the answer becomes the summary.
 * @module
 */
import type { Summarizer } from '../compaction/types.js';
import { CollaboratorError, InvalidInputError } from '../errors.js';
import { Message } from '../message/message.js';
import type { ChatModel } from '../models/types.js';
import { formatHistory } from '../session/format-history.js';

/** The default instructions: keep what later turns depend on, drop what they do not. */
export const DEFAULT_SUMMARY_PROMPT = [
  'You write the running summary of a conversation between a user and an AI assistant. The summary replaces the messages it covers: the assistant will see only the summary and the newer messages, so anything you leave out is lost.',
  'Keep:',
  '- decisions made, and why;',
  '- facts about the user, their goals, constraints and preferences;',
  '- open tasks, unanswered questions and promises not yet kept;',
  '- results of tool calls that later messages rely on (the values themselves, not only that a tool ran);',
  '- names, numbers, identifiers, file names, URLs and dates, exactly as written.',
  'Leave out greetings, small talk, repetition, and anything later messages superseded.',
  'Write compact notes in the third person under short headings. Never invent anything. If a previous summary is given, merge it in: your summary replaces it.',
].join('\n');

/** Options of `modelSummarizer`. */
export interface ModelSummarizerOptions {
  /** Instructions sent as the system prompt. @default DEFAULT_SUMMARY_PROMPT */
  readonly prompt?: string;
  /** Most tokens of the summary. @default 1024 */
  readonly maxOutputTokens?: number;
  /** Longest text kept per message in the transcript (longer ones are cut with "…"). @default 4000 */
  readonly maxCharsPerMessage?: number;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `modelSummarizer: ${message}`);
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw invalid(`${name} must be a positive integer`);
  return value;
}

/**
 * A summarizer that asks `model` for the summary. An empty answer, or one that calls tools instead,
 * throws `SUMMARY_FAILED`, so that `summarize` keeps the history rather than store an empty summary.
 */
export function modelSummarizer(model: ChatModel, options: ModelSummarizerOptions = {}): Summarizer {
  if (typeof model !== 'object' || model === null || typeof model.complete !== 'function')
    throw invalid('needs a ChatModel');
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  const prompt = options.prompt ?? DEFAULT_SUMMARY_PROMPT;
  if (typeof prompt !== 'string' || prompt.trim().length === 0) throw invalid('prompt must be a non-empty string');
  const maxOutputTokens = positiveInteger(options.maxOutputTokens, 'maxOutputTokens', 1024);
  const maxChars = positiveInteger(options.maxCharsPerMessage, 'maxCharsPerMessage', 4000);
  return async (messages, context) => {
    const parts: string[] = [];
    if (context.previousSummary !== undefined) parts.push(`Previous summary:\n${context.previousSummary}`);
    parts.push(`Messages to summarize:\n${formatHistory(messages, { maxChars })}`);
    parts.push('Write the summary now.');
    const response = await model.complete({
      system: prompt,
      messages: [Message.user(parts.join('\n\n'))],
      maxOutputTokens,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    });
    const text = Message.text(response.message).trim();
    if (text.length === 0) {
      throw new CollaboratorError('SUMMARY_FAILED', `${model.provider}: the model answered with an empty summary`, {
        details: { provider: model.provider, finishReason: response.finishReason },
      });
    }
    return text;
  };
}
