import { describe, expect, it } from 'vitest';
import { importInChild } from '../../test/support/import-in-child.js';

const TESTING = new URL('./index.ts', import.meta.url).href;
const STORES = new URL('../stores/', import.meta.url).href;

describe('chatstate/testing', () => {
  it('without vitest installed, importing it is MISSING_DEPENDENCY with the command that fixes it', () => {
    const outcome = importInChild({ hide: ['vitest'], target: TESTING });
    expect(outcome.imported).toBe(false);
    expect(outcome.error).toMatchObject({ name: 'InvalidInputError', code: 'MISSING_DEPENDENCY' });
    expect(outcome.error?.message).toContain('npm install -D vitest');
    // Nothing of the kit past the check was loaded.
    expect(outcome.modules.some((url) => url.endsWith('/testing/conformance.ts'))).toBe(false);
  });

  it('imports no store module: it sits above the store contract, below every store', () => {
    const outcome = importInChild({ hide: [], target: TESTING });
    expect(outcome).toMatchObject({ imported: true });
    expect(outcome.modules.some((url) => url.endsWith('/testing/conformance.ts'))).toBe(true);
    expect(outcome.modules.filter((url) => url.startsWith(STORES))).toEqual([]);
  });
});
