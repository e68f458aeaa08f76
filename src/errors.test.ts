import { describe, expect, it } from 'vitest';
import {
  ChatstateError,
  ConflictError,
  DataError,
  InvalidInputError,
  NotFoundError,
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
