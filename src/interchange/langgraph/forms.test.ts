/** `withoutSentinels`: the serializer's "undefined" sentinels go, every other key stays as data. */
import { describe, expect, it } from 'vitest';
import { withoutSentinels } from './forms.js';

describe('withoutSentinels', () => {
  it('drops the sentinels at every depth and keeps the rest, a "__proto__" key as an own key', () => {
    const value = JSON.parse(
      '{"a":{"lc":2,"type":"undefined"},"b":[{"lc":2,"type":"undefined"},1],"__proto__":{"tier":"free"}}',
    ) as unknown;
    const kept = withoutSentinels(value) as Record<string, unknown>;
    expect(JSON.stringify(kept)).toBe('{"b":[null,1],"__proto__":{"tier":"free"}}');
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(kept['tier']).toBeUndefined();
  });
});
