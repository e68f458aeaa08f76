/** One rule for every format: `validate` is total — garbage and hostile values give problems, never throws. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validate } from '../src/formats/index.js';
import { PROVIDERS } from '../src/message/schema.js';

const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('boom');
    },
    has() {
      throw new Error('boom');
    },
    ownKeys() {
      throw new Error('boom');
    },
  },
);

describe.each(PROVIDERS)('validate(%s, …)', (provider) => {
  it('reports garbage instead of throwing', () => {
    for (const value of [
      undefined,
      null,
      42,
      'text',
      [],
      {},
      { messages: 'no' },
      { messages: [null, 1, 'x'] },
      { contents: [{}] },
      { input: [{}] },
    ]) {
      expect(validate(provider, value).length).toBeGreaterThan(0);
    }
  });

  it('survives a hostile object and hostile nested messages', () => {
    expect(validate(provider, hostile)[0]?.code).toBe('invalid_wire');
    for (const key of ['messages', 'contents', 'input']) {
      expect(() => validate(provider, { [key]: [hostile] })).not.toThrow();
    }
  });

  it('never throws on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(Array.isArray(validate(provider, value))).toBe(true);
        expect(Array.isArray(validate(provider, { messages: value, contents: value, input: value }))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

it('an unknown provider is a problem, not a crash', () => {
  for (const name of ['martian', '__proto__', 'constructor', 'toString']) {
    expect(validate(name as never, {})[0]?.code).toBe('unknown_provider');
  }
});

describe('validate with a value that cannot even be printed (review regression)', () => {
  it('never throws when a getter throws a null-prototype object', () => {
    const wire = {
      get messages(): unknown {
        throw Object.create(null) as unknown;
      },
      get contents(): unknown {
        throw Object.create(null) as unknown;
      },
    };
    for (const provider of PROVIDERS) expect(validate(provider, wire).map((p) => p.code)).toContain('invalid_wire');
  });
});
