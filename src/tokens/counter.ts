/**
 * The `TokenCounter` contract and the per-message accounting every counter shares: message
 * overhead, tool calls and multimodal parts, with counts cached on each (immutable) message.
 * @module
 */
import type { Message } from '../message/message.js';
import type { ContentPart } from '../message/schema.js';

/** Counts tokens of text and of whole messages. */
export interface TokenCounter {
  /** Stable name; cached counts are keyed by it. */
  readonly name: string;
  /** Tokens in a piece of text. */
  countText(text: string): number;
  /** Tokens a message costs in a prompt, overhead included. */
  countMessage(message: Message): number;
}

/** Weights for what is not text. */
export interface MessageWeights {
  /** Fixed cost of every message (role markers, separators). @default 4 */
  perMessage: number;
  /** Fixed cost of every tool call besides its name and arguments. @default 4 */
  perToolCall: number;
  /** An image at `detail: 'low'`. @default 85 */
  imageLow: number;
  /** Any other image (OpenAI's high-detail 1024×1024 cost). @default 765 */
  image: number;
  /** A file given by url or provider id, whose size is unknown. @default 1000 */
  opaqueFile: number;
}

/** Default weights. */
export const DEFAULT_WEIGHTS: MessageWeights = Object.freeze({
  perMessage: 4,
  perToolCall: 4,
  imageLow: 85,
  image: 765,
  opaqueFile: 1000,
});

const TEXT_MEDIA = /^(text\/|application\/(json|xml|x-yaml|yaml|javascript|typescript))/;

function countPart(part: ContentPart, countText: (text: string) => number, weights: MessageWeights): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return countText(part.text);
    case 'image':
      return part.detail === 'low' ? weights.imageLow : weights.image;
    case 'file':
      if (part.data === undefined) return weights.opaqueFile;
      // Text files are sent as text; binary files cost roughly their size (a PDF is rendered per page).
      if (TEXT_MEDIA.test(part.mediaType)) return countText(Buffer.from(part.data, 'base64').toString('utf8'));
      return Math.ceil((part.data.length * 3) / 4 / 4);
    case 'raw':
      return countText(JSON.stringify(part.value));
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

/** Counts one message with `countText` for its text and `weights` for the rest (no caching). */
export function countMessageUncached(
  message: Message,
  countText: (text: string) => number,
  weights: MessageWeights = DEFAULT_WEIGHTS,
): number {
  let total = weights.perMessage;
  if (typeof message.content === 'string') {
    total += countText(message.content);
  } else {
    for (const part of message.content) total += countPart(part, countText, weights);
  }
  if (message.name !== undefined) total += countText(message.name);
  if (message.toolCalls !== undefined) {
    for (const call of message.toolCalls) {
      total += weights.perToolCall + countText(call.name) + countText(call.arguments);
    }
  }
  if (message.toolCallId !== undefined) total += 1;
  return total;
}

const CACHED = Symbol.for('chatstate.cachedCounter');

/** Options of `createCounter`. */
export interface CreateCounterOptions {
  /** Name of the counter; messages' `tokens[name]` are used as known counts. */
  name: string;
  /** Counts tokens in text. */
  countText: (text: string) => number;
  /** Weights for non-text content. */
  weights?: Partial<MessageWeights>;
}

/**
 * A counter whose `countMessage` is cached per message: messages are immutable, so a count never
 * goes stale, and compacting after one append recounts only the new message.
 */
export function createCounter(options: CreateCounterOptions): TokenCounter {
  const weights: MessageWeights = { ...DEFAULT_WEIGHTS, ...options.weights };
  const cache = new WeakMap<Message, number>();
  const { name, countText } = options;
  const counter = {
    name,
    countText,
    countMessage(message: Message): number {
      let count = cache.get(message);
      if (count === undefined) {
        // An own-property read: a counter named "constructor" must not read Object's members.
        const known =
          message.tokens !== undefined && Object.hasOwn(message.tokens, name) ? message.tokens[name] : undefined;
        count = known ?? countMessageUncached(message, countText, weights);
        cache.set(message, count);
      }
      return count;
    },
    [CACHED]: true,
  };
  return Object.freeze(counter);
}

const wrapped = new WeakMap<TokenCounter, TokenCounter>();

/** `counter` itself when it caches already, otherwise a caching wrapper (the same one each time). */
export function cachedCounter(counter: TokenCounter): TokenCounter {
  if ((counter as unknown as Record<symbol, unknown>)[CACHED] === true) return counter;
  let result = wrapped.get(counter);
  if (result === undefined) {
    const cache = new WeakMap<Message, number>();
    result = Object.freeze({
      name: counter.name,
      countText: (text: string) => counter.countText(text),
      countMessage(message: Message): number {
        let count = cache.get(message);
        if (count === undefined) {
          count = counter.countMessage(message);
          cache.set(message, count);
        }
        return count;
      },
      [CACHED]: true,
    });
    wrapped.set(counter, result);
  }
  return result;
}
