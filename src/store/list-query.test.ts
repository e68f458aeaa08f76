import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../errors.js';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, checkListQuery } from './list-query.js';
import { outcomeOf } from '../../test/support/errors.js';

describe('checkListQuery', () => {
  it('fills in the defaults and passes only the filters given', () => {
    expect(checkListQuery(undefined, 's')).toEqual({ limit: DEFAULT_LIST_LIMIT, offset: 0 });
    expect(checkListQuery({}, 's')).toEqual({ limit: DEFAULT_LIST_LIMIT, offset: 0 });
    expect(checkListQuery({ limit: MAX_LIST_LIMIT, offset: 5, userId: 'u', agentId: 'a' }, 's')).toEqual({
      limit: MAX_LIST_LIMIT,
      offset: 5,
      userId: 'u',
      agentId: 'a',
    });
    expect(checkListQuery({ userId: undefined, limit: undefined }, 's')).toEqual({
      limit: DEFAULT_LIST_LIMIT,
      offset: 0,
    });
  });

  const refused: Array<[string, unknown, ErrorCode]> = [
    ['an array as userId', { userId: ['a'] }, 'INVALID_ARGUMENT'],
    ['a number as userId', { userId: 123 }, 'INVALID_ARGUMENT'],
    ['an object as userId', { userId: {} }, 'INVALID_ARGUMENT'],
    ['null as agentId', { agentId: null }, 'INVALID_ARGUMENT'],
    ['a boolean as agentId', { agentId: true }, 'INVALID_ARGUMENT'],
    ['a string limit', { limit: '10' }, 'INVALID_ARGUMENT'],
    ['a zero limit', { limit: 0 }, 'INVALID_ARGUMENT'],
    ['a limit over the maximum', { limit: MAX_LIST_LIMIT + 1 }, 'INVALID_ARGUMENT'],
    ['a fractional offset', { offset: 0.5 }, 'INVALID_ARGUMENT'],
    ['a negative offset', { offset: -1 }, 'INVALID_ARGUMENT'],
    ['an unsafe offset', { offset: 2 ** 53 }, 'INVALID_ARGUMENT'],
    ['a misspelt field', { userID: 'a' }, 'INVALID_ARGUMENT'],
    ['a "__proto__" field', JSON.parse('{"__proto__":{"userId":"a"}}'), 'INVALID_ARGUMENT'],
    ['null as the query', null, 'INVALID_ARGUMENT'],
    ['an array as the query', [], 'INVALID_ARGUMENT'],
    ['a string as the query', 'a', 'INVALID_ARGUMENT'],
    [
      'a query whose getter throws',
      {
        get userId(): never {
          throw new Error('getter');
        },
      },
      'INVALID_ARGUMENT',
    ],
    ['an empty userId', { userId: '' }, 'INVALID_ID'],
    ['a lone surrogate as userId', { userId: '\ud800' }, 'INVALID_ID'],
  ];
  it.each(refused)('refuses %s', (_name, query, code) => {
    expect(outcomeOf(() => checkListQuery(query, 'test-store'))).toBe(code);
  });

  it('names the store and the field', () => {
    expect(() => checkListQuery({ userId: 1 }, 'test-store')).toThrow(
      /^test-store: list userId must be a string, not 1$/,
    );
  });
});
