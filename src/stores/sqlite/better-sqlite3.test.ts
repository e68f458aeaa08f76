/**
 * `nativeLoadFailure`: the one reading of "better-sqlite3's native addon did not load", for the
 * store and the importers alike (the importers' copy knew only ERR_DLOPEN_FAILED). A missing
 * package is tested end to end in test/stores/sqlite-driver.test.ts and the importers' suites.
 */
import { describe, expect, it } from 'vitest';
import { nativeLoadFailure } from './better-sqlite3.js';

const importer = { who: 'langgraph', needs: 'reading a SQLite database' };

describe('nativeLoadFailure', () => {
  it('names a native addon that did not load, however it failed, with the rebuild hint', () => {
    const failures = [
      Object.assign(new Error('libc.so.6: version not found'), { code: 'ERR_DLOPEN_FAILED' }),
      new Error('Could not locate the bindings file. Tried: build/Release/better_sqlite3.node'),
      new Error('was compiled against a different Node.js version using NODE_MODULE_VERSION 115'),
    ];
    for (const failure of failures) {
      const error = nativeLoadFailure(failure, importer);
      expect(error).toMatchObject({ code: 'MISSING_DEPENDENCY', details: { package: 'better-sqlite3' } });
      expect(error?.message).toMatch(/^langgraph: reading a SQLite database needs the optional package better-sqlite3/);
      expect(error?.message).toContain('npm rebuild better-sqlite3');
      expect(error?.cause).toBe(failure);
    }
  });

  it('leaves any other failure to open a database to its caller', () => {
    const cantOpen = Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' });
    expect(nativeLoadFailure(cantOpen, importer)).toBeUndefined();
    expect(nativeLoadFailure(undefined, importer)).toBeUndefined();
  });
});
