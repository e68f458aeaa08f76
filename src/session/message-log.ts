/**
 * `MessageLog`: the history a session holds, as a persistent sequence. Sessions that extend one
 * another share one append-only backing array, each seeing its own prefix of it, so appending k
 * messages to an n-message session costs O(k), not a copy of n references (about 1 ms at 100k
 * messages). The plain frozen array (`Session.messages`) is built on first request and kept.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { concatArrays, copyRange } from '../freeze.js';
import { Message } from '../message/message.js';

/** Read access to an ordered run of messages: a `readonly Message[]` is one, and so is a `MessageLog`. */
export interface MessageSequence {
  readonly length: number;
  /** The message at `index` (negative counts from the end), or `undefined` outside the sequence. */
  at(index: number): Message | undefined;
}

/** An immutable, persistent sequence of messages: `append` returns a new log and never changes this one. */
export class MessageLog implements MessageSequence, Iterable<Message> {
  /**
   * The backing array. It is only ever pushed to, by the log whose length is its length (the newest
   * log over it), so every older log still sees exactly its own prefix. Frozen when it came from
   * the caller or a store: the first append then copies it once into a fresh array.
   */
  readonly #items: readonly Message[];
  /** The frozen array of this log's messages, once asked for. */
  #array: readonly Message[] | undefined;
  readonly length: number;

  private constructor(items: readonly Message[], length: number) {
    this.#items = items;
    this.length = length;
    if (Object.isFrozen(items) && items.length === length) this.#array = items;
    Object.freeze(this);
  }

  /** The log of `messages`, which must all be `Message` values; a frozen array is shared, not copied. */
  static of(messages: readonly Message[]): MessageLog {
    checkMessages(messages);
    return new MessageLog(Object.isFrozen(messages) ? messages : Object.freeze(copyRange(messages)), messages.length);
  }

  /** True when `value` is a `MessageLog`. */
  static is(value: unknown): value is MessageLog {
    return value instanceof MessageLog;
  }

  /** The message at `index` (negative counts from the end), or `undefined` outside the log. */
  at(index: number): Message | undefined {
    const i = index < 0 ? this.length + index : index;
    return i >= 0 && i < this.length ? this.#items[i] : undefined;
  }

  /** A new log with `messages` (each a `Message` value) after this one's. */
  append(messages: readonly Message[]): MessageLog {
    checkMessages(messages);
    if (messages.length === 0) return this;
    const items = this.#items;
    // Only the newest log over a backing array may extend it in place: an older one would overwrite
    // what a newer one sees. A frozen backing array is copied once; later appends share the copy.
    if (items.length === this.length && !Object.isFrozen(items)) {
      const growing = items as Message[];
      for (const message of messages) growing.push(message);
      return new MessageLog(growing, growing.length);
    }
    const fresh = copyRange(items, 0, this.length);
    for (const message of messages) fresh.push(message);
    return new MessageLog(fresh, fresh.length);
  }

  /** A copy of the messages in `[start, end)` (negative indices count from the end, as in `Array.slice`). */
  slice(start = 0, end = this.length): Message[] {
    const from = start < 0 ? Math.max(0, this.length + start) : Math.min(start, this.length);
    const to = end < 0 ? Math.max(0, this.length + end) : Math.min(end, this.length);
    return copyRange(this.#items, from, Math.max(from, to));
  }

  /** The messages as a frozen array: built once (O(n)), then the same array every time. */
  toArray(): readonly Message[] {
    this.#array ??= Object.freeze(copyRange(this.#items, 0, this.length));
    return this.#array;
  }

  *[Symbol.iterator](): Iterator<Message> {
    const items = this.#items;
    for (let i = 0; i < this.length; i++) yield items[i] as Message;
  }
}

function checkMessages(messages: readonly Message[]): void {
  if (!Array.isArray(messages))
    throw new InvalidInputError('INVALID_ARGUMENT', 'A message log holds an array of Message values');
  for (const message of messages) {
    if (!Message.is(message))
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        'A message log holds Message values only (use Message.from first)',
      );
  }
}

/** A new array of `sequence`'s messages in `[start, end)` (indices from 0, within the sequence). */
export function sliceSequence(sequence: MessageSequence, start = 0, end = sequence.length): Message[] {
  if (Array.isArray(sequence)) return copyRange(sequence as readonly Message[], start, end);
  if (MessageLog.is(sequence)) return sequence.slice(start, end);
  return Array.from({ length: Math.max(0, end - start) }, (_, k) => sequence.at(start + k) as Message);
}

/** A new array of `sequence`'s messages followed by `extra`. */
export function concatSequence(sequence: MessageSequence, extra: readonly Message[]): Message[] {
  if (Array.isArray(sequence)) return concatArrays(sequence as readonly Message[], extra);
  const out = sliceSequence(sequence);
  for (const message of extra) out.push(message);
  return out;
}
