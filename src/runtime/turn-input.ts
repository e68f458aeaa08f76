/**
 * A turn's input: user text or messages, validated up front; and the idempotency of a retried
 * turn — input messages already stored (found by id) mean the turn ran before, so its stored reply
 * is returned instead of calling the model again.
 * @module
 */
import { ConflictError, InvalidInputError } from '../errors.js';
import { Message, type MessageInput } from '../message/message.js';
import { sliceSequence, type MessageSequence } from '../session/message-log.js';

/** What a turn takes: user text, or one or more messages (with an `id` each, a retry is recognized). */
export type TurnInput = string | Message | MessageInput | ReadonlyArray<Message | MessageInput>;

/** A turn's input, validated. */
export interface CheckedInput {
  readonly messages: Message[];
  /**
   * True when some id came from the caller (a message, or an input with `id`): only then can the
   * turn be a retry. Ids made here are new, so the history need not be searched for them.
   */
  readonly callerIds: boolean;
}

/**
 * The input as validated messages; `INVALID_ARGUMENT` for no input (unless `allowEmpty`: the
 * history then already ends with what the model should answer), `INVALID_MESSAGE` for a bad message.
 */
export function inputMessages(input: TurnInput, { allowEmpty = false } = {}): CheckedInput {
  if (typeof input === 'string') return { messages: [Message.user(input)], callerIds: false };
  if (typeof input !== 'object' || input === null)
    throw new InvalidInputError('INVALID_ARGUMENT', 'A turn needs user text or messages as input');
  const list: ReadonlyArray<Message | MessageInput> = Array.isArray(input) ? input : [input as Message | MessageInput];
  if (list.length === 0 && !allowEmpty)
    throw new InvalidInputError('INVALID_ARGUMENT', 'A turn needs at least one input message');
  // Checked here: reading `id` of a null entry would be a TypeError, not a typed error.
  const bad = list.findIndex((message) => typeof message !== 'object' || message === null);
  if (bad !== -1)
    throw new InvalidInputError(
      'INVALID_MESSAGE',
      `Invalid message: input[${bad}] is ${list[bad] === null ? 'null' : typeof list[bad]}, not a message`,
    );
  const callerIds = list.some((message) => Message.is(message) || (message as MessageInput).id !== undefined);
  const messages = list.map((message) => Message.from(message));
  const ids = new Set(messages.map((message) => message.id));
  if (ids.size !== messages.length)
    throw new InvalidInputError('INVALID_ARGUMENT', 'The input messages of a turn must have distinct ids');
  return { messages, callerIds };
}

/** How the input relates to what is stored. */
export type PriorTurn =
  /** Not stored: a new turn. */
  | { readonly kind: 'new' }
  /** Stored and answered: `messages` runs from the first input message to the stored reply. */
  | { readonly kind: 'answered'; readonly messages: readonly Message[]; readonly reply: Message }
  /** Stored as the end of the history, not answered yet: run the model without adding the input again. */
  | { readonly kind: 'unanswered' };

function isFinalAnswer(message: Message): boolean {
  return message.role === 'assistant' && (message.toolCalls === undefined || message.toolCalls.length === 0);
}

/**
 * Finds the input in `history` by message id (one pass from the newest message, stopping early
 * when every id is found). `INVALID_ARGUMENT` when only some input messages are stored (an id was
 * reused for another message); `CONFLICT` when the input is stored, unanswered, and other messages followed it.
 */
export function findPriorTurn(history: MessageSequence, input: readonly Message[]): PriorTurn {
  const wanted = new Map(input.map((message, index) => [message.id, index]));
  const found = new Array<number>(input.length).fill(-1);
  let left = input.length;
  for (let i = history.length - 1; i >= 0 && left > 0; i--) {
    const index = wanted.get((history.at(i) as Message).id);
    if (index !== undefined && found[index] === -1) {
      found[index] = i;
      left -= 1;
    }
  }
  if (left === input.length) return { kind: 'new' };
  if (left > 0) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      'Some input messages of this turn are already stored and some are not: a message id was reused for another message',
    );
  }
  const first = Math.min(...found);
  const last = Math.max(...found);
  for (let i = last + 1; i < history.length; i++) {
    const message = history.at(i) as Message;
    if (isFinalAnswer(message))
      return { kind: 'answered', messages: sliceSequence(history, first, i + 1), reply: message };
    if (message.role === 'user') break;
  }
  let openEnd = true;
  for (let i = last + 1; i < history.length && openEnd; i++) openEnd = (history.at(i) as Message).role !== 'user';
  if (openEnd) return { kind: 'unanswered' };
  throw new ConflictError(
    'The input of this turn is already stored, unanswered, and other messages followed it; send it again with new ids',
    {
      details: { messageId: (history.at(last) as Message).id },
    },
  );
}
