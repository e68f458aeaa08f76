/**
 * What the server stores share about connections, checked once here: a connection URL is parsed
 * without ever being echoed, and a server that cannot be reached is one `UNAVAILABLE` shape.
 */
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../test/support/errors.js';
import { parseConnectionUrl, unreachable } from './network.js';

describe('parseConnectionUrl', () => {
  it('parses a URL of one of the schemes, search parameters and all', () => {
    const parsed = parseConnectionUrl('rediss://user:secret@cache:6380/2?prefix=a', 'redis', ['redis:', 'rediss:']);
    expect([parsed.hostname, parsed.port, parsed.searchParams.get('prefix')]).toEqual(['cache', '6380', 'a']);
  });

  it('refuses another scheme or a text that is not a URL, never echoing the URL (it may hold a password)', () => {
    const scheme = thrownBy(() =>
      parseConnectionUrl('mysql://u:hunter2@db/x', 'postgres', ['postgres:', 'postgresql:']),
    );
    expect(scheme).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(scheme.message).toBe('postgres: expected a postgres:// or postgresql:// URL, got mysql:');
    const text = thrownBy(() => parseConnectionUrl('hunter2 not a url', 'redis', ['redis:']));
    expect(text).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'redis: the connection URL is not a valid URL' });
  });
});

describe('unreachable', () => {
  it('is UNAVAILABLE naming the store, what it was doing, the reason and whether the request may have run', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const error = unreachable(
      'postgres',
      { reason: 'CONNECTION', notSent: true },
      'not-applied',
      cause,
      'no connection',
    );
    expect(error).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'postgres: the server cannot be reached (no connection): connect ECONNREFUSED 127.0.0.1:5432',
      details: { store: 'postgres', reason: 'CONNECTION', outcome: 'not-applied' },
      cause,
    });
  });
});
