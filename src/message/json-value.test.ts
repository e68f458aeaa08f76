import { describe, expect, it } from 'vitest';
import type { ChatstateError } from '../errors.js';
import {
  EMPTY_OBJECT,
  MAX_JSON_DEPTH,
  checkJson,
  checkJsonRecord,
  readJson,
  readJsonObject,
  readJsonRecord,
  type JsonProblemKind,
} from './json-value.js';

describe('readJson', () => {
  const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });
  const cyclic: Record<string, unknown> = { list: [] };
  (cyclic.list as unknown[]).push({ back: cyclic });
  const problems: Array<[string, unknown, JsonProblemKind, string]> = [
    ['too deep', { x: deep(MAX_JSON_DEPTH) }, 'too-deep', 'x.a.a…(59 more)…a.a'],
    ['a cycle', cyclic, 'cyclic', 'list[0].back'],
    [
      'a getter',
      {
        ok: 1,
        get bad() {
          return 1;
        },
      },
      'unreadable',
      'bad',
    ],
    ['a Proxy', { inner: new Proxy({}, {}) }, 'unreadable', 'inner'],
    ['a Date', { when: new Date(0) }, 'not-json', 'when'],
    ['NaN in an array', [1, Number.NaN], 'not-json', '[1]'],
    // eslint-disable-next-line no-sparse-arrays -- a hole is the point
    ['a hole', [1, , 3], 'not-json', '[1]'],
    ['an odd key', { 'odd key': () => 1 }, 'not-json', '["odd key"]'],
    ['a symbol key', { [Symbol('s')]: 1 }, 'not-json', ''],
    ['undefined itself', undefined, 'not-json', ''],
  ];
  it.each(problems)('%s: kind and path', (_name, value, kind, path) => {
    const read = readJson(value);
    expect(read.ok ? undefined : { kind: read.problem.kind, path: read.problem.path }).toEqual({ kind, path });
  });

  it('stops at maxChars, and says too large without a path', () => {
    const read = readJson({ a: 'x'.repeat(100) }, { maxChars: 50 });
    expect(read.ok ? undefined : read.problem).toEqual({
      kind: 'too-large',
      path: '',
      message: 'larger than 50 characters of JSON',
    });
  });

  it('answers {} with one shared frozen copy, and never changes or freezes the input', () => {
    expect(readJson({})).toMatchObject({ ok: true, value: EMPTY_OBJECT, size: 2 });
    const input = { a: [1, { b: 'c' }] };
    const read = readJson(input);
    expect(read.ok && Object.isFrozen(read.value)).toBe(true);
    expect(Object.isFrozen(input) || Object.isFrozen(input.a)).toBe(false);
  });

  it('requires an object for readJsonObject, and counts a record’s own level apart', () => {
    expect(readJsonObject([]).ok).toBe(false);
    expect(readJsonObject('x').ok).toBe(false);
    expect(readJsonObject({ v: deep(MAX_JSON_DEPTH) }).ok).toBe(false);
    expect(readJsonRecord({ v: deep(MAX_JSON_DEPTH) }).ok).toBe(true);
    const over = readJsonRecord({ v: deep(MAX_JSON_DEPTH + 1) });
    expect(over.ok ? '' : over.problem.message).toBe(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  });
});

describe('checkJson and checkJsonRecord', () => {
  it('throw the code given, or TOO_LARGE, naming what', () => {
    const thrown = (run: () => unknown): ChatstateError | undefined => {
      try {
        run();
      } catch (error) {
        return error as ChatstateError;
      }
      return undefined;
    };
    expect(thrown(() => checkJson({ a: 1n }, 'The thing', 'INVALID_MESSAGE'))).toMatchObject({
      code: 'INVALID_MESSAGE',
      message: 'The thing at a is not a valid JSON value: a bigint is not a JSON value',
    });
    expect(thrown(() => checkJsonRecord('x', 'metadata'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { what: 'metadata', reason: 'not-json' },
    });
    expect(thrown(() => checkJson('x'.repeat(10), 'Value', 'INVALID_ARGUMENT', { maxChars: 5 }))).toMatchObject({
      code: 'TOO_LARGE',
      message: 'Value is larger than 5 characters of JSON',
    });
  });
});
