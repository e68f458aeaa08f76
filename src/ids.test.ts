import { describe, expect, it } from 'vitest';
import { ChatstateError } from './errors.js';
import { assertValidId, isValidId, newId } from './ids.js';

describe('newId', () => {
  it('never collides, even for many ids in one millisecond', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 50_000; i++) ids.add(newId('msg'));
    expect(ids.size).toBe(50_000);
  });

  it('makes valid, prefixed, roughly time-ordered ids', () => {
    const first = newId('ses');
    const second = newId('ses');
    expect(isValidId(first)).toBe(true);
    expect(first.startsWith('ses_')).toBe(true);
    expect(first.slice(0, 17) <= second.slice(0, 17)).toBe(true);
  });
});

describe('assertValidId', () => {
  const hostile = [
    '',
    '../etc/passwd',
    '..',
    'a/b',
    'a\\b',
    '/abs',
    '.hidden',
    '__proto__',
    'constructor',
    'a..b',
    'x'.repeat(129),
    'nul\0',
    'sp ace',
    'é',
  ];
  it.each(hostile)('rejects %j with INVALID_ID', (id) => {
    let caught: unknown;
    try {
      assertValidId(id);
    } catch (error) {
      caught = error;
    }
    expect(ChatstateError.isInstance(caught) && caught.code).toBe('INVALID_ID');
  });

  it('rejects non-strings', () => {
    expect(() => assertValidId(42)).toThrow(/Invalid id/);
    expect(() => assertValidId({ toString: () => 'ok' })).toThrow(/Invalid id/);
  });

  it('accepts ordinary ids', () => {
    for (const id of ['a', 'ses_123', 'User.Chat-01', 'x'.repeat(128)]) expect(assertValidId(id)).toBe(id);
  });
});
