import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../errors.js';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, checkListQuery } from './list-query.js';
import { outcomeOf } from '../../test/support/errors.js';

describe('checkListQuery', () => {
  it('fills in the defaults and passes only the filters given', () => {
    expect(checkListQuery(undefined, 's')).toEqual({ limit: DEFAULT_LIST_LIMIT, offset: 0, kinds: 'conversations' });
    expect(checkListQuery({}, 's')).toEqual({ limit: DEFAULT_LIST_LIMIT, offset: 0, kinds: 'conversations' });
    expect(checkListQuery({ limit: MAX_LIST_LIMIT, offset: 5, userId: 'u', agentId: 'a' }, 's')).toEqual({
      limit: MAX_LIST_LIMIT,
      offset: 5,
      userId: 'u',
      agentId: 'a',
      kinds: 'conversations',
    });
    expect(checkListQuery({ userId: undefined, limit: undefined }, 's')).toEqual({
      limit: DEFAULT_LIST_LIMIT,
      offset: 0,
      kinds: 'conversations',
    });
    expect(checkListQuery({ after: undefined, expired: false }, 's')).toEqual({
      limit: DEFAULT_LIST_LIMIT,
      offset: 0,
      kinds: 'conversations',
    });
    expect(checkListQuery({ expired: true }, 's')).toEqual({
      limit: DEFAULT_LIST_LIMIT,
      offset: 0,
      expired: true,
      kinds: 'conversations',
    });
  });

  it('takes kinds as a word or a frozen, deduplicated copy of the kinds named; anything else INVALID_ARGUMENT', () => {
    expect(checkListQuery({ kinds: 'all' }, 's').kinds).toBe('all');
    expect(checkListQuery({ kinds: 'conversations' }, 's').kinds).toBe('conversations');
    const named = ['knowledge', 'langgraph-checkpoints', 'knowledge'];
    const checked = checkListQuery({ kinds: named }, 's').kinds;
    expect(checked).toEqual(['knowledge', 'langgraph-checkpoints']);
    expect(checked).not.toBe(named);
    expect(Object.isFrozen(checked)).toBe(true);
    for (const kinds of ['everything', [], ['Knowledge'], [''], ['a', 1], 'knowledge', 7, null])
      expect(outcomeOf(() => checkListQuery({ kinds }, 's'))).toBe('INVALID_ARGUMENT');
  });

  it('takes any list row as the cursor, keeping only its updatedAt and id', () => {
    const row = Object.freeze({
      id: 'chat-7',
      userId: 'u',
      messageCount: 3,
      tokenCount: 40,
      version: 2,
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00.000Z',
    });
    const checked = checkListQuery({ after: row, offset: 2 }, 's');
    expect(checked).toEqual({
      limit: DEFAULT_LIST_LIMIT,
      offset: 2,
      after: { updatedAt: '2024-05-01T10:00:00.000Z', id: 'chat-7' },
      kinds: 'conversations',
    });
    expect(checked.after).not.toBe(row);
    // Any ISO-8601 form Date.parse reads: an offset, no milliseconds.
    expect(checkListQuery({ after: { updatedAt: '2024-05-01T12:00:00+02:00', id: 'a' } }, 's').after).toEqual({
      updatedAt: '2024-05-01T12:00:00+02:00',
      id: 'a',
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
    ['null as after', { after: null }, 'INVALID_ARGUMENT'],
    ['a string as after', { after: '2024-05-01T10:00:00.000Z' }, 'INVALID_ARGUMENT'],
    ['an array as after', { after: ['2024-05-01T10:00:00.000Z', 'a'] }, 'INVALID_ARGUMENT'],
    ['an after without updatedAt', { after: { id: 'a' } }, 'INVALID_ARGUMENT'],
    ['an after without id', { after: { updatedAt: '2024-05-01T10:00:00.000Z' } }, 'INVALID_ARGUMENT'],
    ['a number as after.updatedAt', { after: { updatedAt: 1714557600000, id: 'a' } }, 'INVALID_ARGUMENT'],
    ['a Date as after.updatedAt', { after: { updatedAt: new Date(0), id: 'a' } }, 'INVALID_ARGUMENT'],
    ['a word as after.updatedAt', { after: { updatedAt: 'yesterday', id: 'a' } }, 'INVALID_ARGUMENT'],
    [
      'an impossible date as after.updatedAt',
      { after: { updatedAt: '2024-13-01T00:00:00Z', id: 'a' } },
      'INVALID_ARGUMENT',
    ],
    ['an empty after.updatedAt', { after: { updatedAt: '', id: 'a' } }, 'INVALID_ARGUMENT'],
    ['a NUL in after.updatedAt', { after: { updatedAt: '2024-05-01\0', id: 'a' } }, 'INVALID_ARGUMENT'],
    ['a number as after.id', { after: { updatedAt: '2024-05-01T10:00:00.000Z', id: 7 } }, 'INVALID_ARGUMENT'],
    ['null as after.id', { after: { updatedAt: '2024-05-01T10:00:00.000Z', id: null } }, 'INVALID_ARGUMENT'],
    ['an empty after.id', { after: { updatedAt: '2024-05-01T10:00:00.000Z', id: '' } }, 'INVALID_ARGUMENT'],
    ['a path as after.id', { after: { updatedAt: '2024-05-01T10:00:00.000Z', id: '../x' } }, 'INVALID_ARGUMENT'],
    [
      'an after whose getter throws',
      {
        after: {
          id: 'a',
          get updatedAt(): never {
            throw new Error('getter');
          },
        },
      },
      'INVALID_ARGUMENT',
    ],
    ['a string as expired', { expired: 'true' }, 'INVALID_ARGUMENT'],
    ['a number as expired', { expired: 1 }, 'INVALID_ARGUMENT'],
    ['null as expired', { expired: null }, 'INVALID_ARGUMENT'],
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
