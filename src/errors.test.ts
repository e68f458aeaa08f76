import { describe, expect, it } from 'vitest';
import {
  ChatstateError,
  ClosedError,
  CollaboratorError,
  ConflictError,
  DataError,
  ForbiddenError,
  InvalidInputError,
  ModelError,
  NotFoundError,
  UnauthorizedError,
  UnavailableError,
  UnsupportedError,
  errorMessage,
} from './errors.js';

describe('ChatstateError', () => {
  it('carries a code, a cause and frozen details', () => {
    const cause = new Error('disk');
    const error = new DataError('CORRUPT', 'bad file', { cause, details: { file: 'x' } });
    expect(error.code).toBe('CORRUPT');
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('DataError');
    expect(Object.isFrozen(error.details)).toBe(true);
    expect(error).toBeInstanceOf(ChatstateError);
  });

  it('fixes the code of NotFoundError and ConflictError', () => {
    expect(new NotFoundError('x').code).toBe('NOT_FOUND');
    expect(new ConflictError('x').code).toBe('CONFLICT');
  });

  it('UnsupportedError is UNSUPPORTED with the store and the missing capability', () => {
    const error = new UnsupportedError('jsonl: no values', { store: 'jsonl', capability: 'values' });
    expect(error).toMatchObject({
      name: 'UnsupportedError',
      code: 'UNSUPPORTED',
      details: { store: 'jsonl', capability: 'values' },
    });
    expect(ChatstateError.hasCode(error, 'UNSUPPORTED')).toBe(true);
  });

  it('hasCode: a chatstate error with one of the codes, nothing else', () => {
    expect(ChatstateError.hasCode(new NotFoundError('x'), 'NOT_FOUND')).toBe(true);
    expect(ChatstateError.hasCode(new ConflictError('x'), 'NOT_FOUND', 'CONFLICT')).toBe(true);
    expect(ChatstateError.hasCode(new ConflictError('x'), 'NOT_FOUND')).toBe(false);
    expect(ChatstateError.hasCode(Object.assign(new Error('x'), { code: 'NOT_FOUND' }), 'NOT_FOUND')).toBe(false);
    expect(ChatstateError.hasCode(undefined, 'NOT_FOUND')).toBe(false);
  });

  it('is recognized across copies by its marker, not by instanceof', () => {
    const error = new InvalidInputError('INVALID_ID', 'x');
    const lookalike = Object.assign(Object.create(Error.prototype) as object, {
      [Symbol.for('chatstate.error')]: true,
    });
    expect(ChatstateError.isInstance(error)).toBe(true);
    expect(ChatstateError.isInstance(lookalike)).toBe(true);
    expect(ChatstateError.isInstance(new Error('plain'))).toBe(false);
    expect(ChatstateError.isInstance(null)).toBe(false);
  });
});

/** A subclass of the kind other modules declare: its own constructor parameters and a field of its own. */
class LockedOut extends ConflictError {
  readonly holder: string;

  constructor(id: string, holder: string) {
    super(`session ${JSON.stringify(id)} is held by ${holder}`, { details: { id } });
    this.holder = holder;
  }
}

/** One error of every class, each about the stored session `acme.s1`. */
const EVERY_CLASS: ReadonlyArray<readonly [string, () => ChatstateError]> = [
  ['ChatstateError', () => new ChatstateError('INTERNAL', 'acme.s1: broke', { details: { id: 'acme.s1' } })],
  ['InvalidInputError', () => new InvalidInputError('INVALID_ID', 'bad id acme.s1', { details: { id: 'acme.s1' } })],
  ['NotFoundError', () => new NotFoundError('no session "acme.s1"', { details: { id: 'acme.s1' } })],
  ['UnauthorizedError', () => new UnauthorizedError('no key for acme.s1')],
  ['ForbiddenError', () => new ForbiddenError('acme.s1 is not yours')],
  ['ConflictError', () => new ConflictError('acme.s1 is at 3', { details: { id: 'acme.s1', actual: 3 } })],
  ['ClosedError', () => new ClosedError('closed while on acme.s1', { details: { store: 'memory' } })],
  ['UnsupportedError', () => new UnsupportedError('no values for acme.s1', { store: 'jsonl', capability: 'values' })],
  ['DataError', () => new DataError('CORRUPT', 'acme.s1 is damaged', { details: { file: 'acme.s1.json' } })],
  ['CollaboratorError', () => new CollaboratorError('SUMMARY_FAILED', 'summary of acme.s1 failed')],
  [
    'UnavailableError',
    () => new UnavailableError('acme.s1 unreachable', { store: 'redis', reason: 'CONNECTION', id: 'acme.s1' }),
  ],
  [
    'ModelError',
    () =>
      new ModelError('RATE_LIMITED', 'slow down on acme.s1', {
        provider: 'openaiChat',
        status: 429,
        retryable: true,
        retryAfterMs: 500,
      }),
  ],
  ['LockedOut', () => new LockedOut('acme.s1', 'pid 7')],
];

describe('withMessage: the same error in other words', () => {
  it.each(EVERY_CLASS)('%s keeps its class, code and fields, with the original as cause', (name, make) => {
    const original = make();
    const before = { message: original.message, details: original.details };
    const copy = original.withMessage('told as s1');
    expect(copy).not.toBe(original);
    expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(original));
    expect(copy).toBeInstanceOf(original.constructor);
    expect(copy).toBeInstanceOf(Error);
    expect(copy.name).toBe(name);
    expect(copy.code).toBe(original.code);
    expect(copy.message).toBe('told as s1');
    expect(copy.cause).toBe(original);
    expect(copy.details).toBe(original.details);
    expect(ChatstateError.isInstance(copy)).toBe(true);
    // Every field of its own (retryable, provider, status, a subclass's own) comes along.
    for (const key of Object.keys(original))
      expect(copy[key as keyof ChatstateError], key).toEqual(original[key as keyof ChatstateError]);
    // Its stack tells the new message, never the old one (which may name what must stay inside).
    expect(copy.stack?.split('\n')[0]).toBe(`${name}: told as s1`);
    expect(copy.stack).not.toContain('acme.s1');
    expect({ message: original.message, details: original.details }).toEqual(before);
  });

  it.each(EVERY_CLASS)("%s takes new details, frozen, and leaves the original's alone", (_name, make) => {
    const original = make();
    const details = { ...original.details, id: 's1' };
    const copy = original.withMessage('told as s1', details);
    expect(copy.details).toEqual(details);
    expect(copy.details).not.toBe(details);
    expect(Object.isFrozen(copy.details)).toBe(true);
    expect(original.details['id']).not.toBe('s1');
  });

  it('keeps retryable where the class has it', () => {
    const unavailable = new UnavailableError('down', { store: 'postgres', reason: 'CONNECTION' }).withMessage('x');
    expect(unavailable).toBeInstanceOf(UnavailableError);
    expect(unavailable.retryable).toBe(true);
    const model = new ModelError('MODEL_FAILED', 'bad request', {
      provider: 'anthropic',
      status: 400,
      retryable: false,
    });
    expect(model.withMessage('x')).toMatchObject({ retryable: false, provider: 'anthropic', status: 400 });
    expect(new LockedOut('s', 'pid 9').withMessage('x').holder).toBe('pid 9');
  });
});

describe('errorMessage (review regression)', () => {
  it('describes any thrown value and never throws itself', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(Symbol('s'))).toBe('Symbol(s)');
    // String() throws on a null-prototype object: the description must not.
    expect(errorMessage(Object.create(null))).toBe('a value that cannot be printed was thrown');
    const hostile = new Error('x');
    Object.defineProperty(hostile, 'message', {
      get() {
        throw new Error('getter');
      },
    });
    expect(errorMessage(hostile)).toBe('a value that cannot be printed was thrown');
  });
});
