import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineAt, lineOfKey, parseJson } from './json-text.js';
import { exporterFor } from './index.js';
import {
  checkTimeZone,
  formatNaiveLocal,
  readCompactOffset,
  readEpochSeconds,
  readNaiveLocal,
  readTimestamp,
} from './timestamps.js';
import { Session } from '../session/session.js';

describe('interchange timestamps', () => {
  it('reads a naive local time in a zone, on both sides of a DST change', () => {
    expect(readNaiveLocal('2025-01-15T09:00:00', 'Europe/Lisbon')).toEqual({
      iso: '2025-01-15T09:00:00.000Z',
      assumedZone: 'Europe/Lisbon',
    });
    expect(readNaiveLocal('2025-07-15T09:00:00.123456', 'Europe/Lisbon')?.iso).toBe('2025-07-15T08:00:00.123Z');
    expect(readNaiveLocal('2025-03-30T03:30:00', 'America/New_York')?.iso).toBe('2025-03-30T07:30:00.000Z');
    expect(readNaiveLocal('2025-11-02T12:00:00', 'America/New_York')?.iso).toBe('2025-11-02T17:00:00.000Z');
    expect(readNaiveLocal('2025-04-10T09:15:02', 'Asia/Kolkata')?.iso).toBe('2025-04-10T03:45:02.000Z');
  });

  it('honours offsets and Z (Python fromisoformat accepts them in hand-edited files), and date-only values', () => {
    expect(readNaiveLocal('2025-04-10T09:15:02+02:00', 'Asia/Tokyo')).toEqual({ iso: '2025-04-10T07:15:02.000Z' });
    expect(readTimestamp('2026-02-07T09:31:05.123456Z', 'UTC')).toEqual({ iso: '2026-02-07T09:31:05.123Z' });
    expect(readTimestamp('2026-02-07', 'UTC')).toEqual({ iso: '2026-02-07T00:00:00.000Z', assumedZone: 'UTC' });
  });

  it('refuses what is not a time', () => {
    for (const text of [
      '',
      'yesterday',
      '2025-02-30T00:00:00',
      '2025-13-01T00:00:00',
      '2025-01-01T24:00:00',
      '2025-01-01T00:00:00+25:00',
    ])
      expect(readTimestamp(text, 'UTC'), text).toBeUndefined();
  });

  it('reads Magent’s %z offsets without a colon by an explicit rule', () => {
    expect(readCompactOffset('2025-02-21T14:30:15-0800')).toBe('2025-02-21T22:30:15.000Z');
    expect(readCompactOffset('2025-02-21T14:30:15+0530')).toBe('2025-02-21T09:00:15.000Z');
    expect(readCompactOffset('2025-02-21T14:30:15+0000')).toBe('2025-02-21T14:30:15.000Z');
    expect(readCompactOffset('2025-02-21T14:30:15-08:00')).toBeUndefined();
    expect(readCompactOffset('2025-02-21 14:30:15-0800')).toBeUndefined();
  });

  it('reads float epoch seconds', () => {
    expect(readEpochSeconds(1746950400.125)).toBe('2025-05-11T08:00:00.125Z');
    expect(readEpochSeconds('1746950400')).toBeUndefined();
    expect(readEpochSeconds(Number.NaN)).toBeUndefined();
    expect(readEpochSeconds(1e20)).toBeUndefined();
  });

  it('writes naive local times with six fractional digits, never Z, and reads them back', () => {
    expect(formatNaiveLocal('2025-07-15T08:00:00.123Z', 'Europe/Lisbon')).toBe('2025-07-15T09:00:00.123000');
    expect(formatNaiveLocal('2025-01-15T09:00:00Z', 'UTC')).toBe('2025-01-15T09:00:00.000000');
    expect(
      readNaiveLocal(formatNaiveLocal('2025-11-02T17:00:00.042Z', 'America/New_York'), 'America/New_York')?.iso,
    ).toBe('2025-11-02T17:00:00.042Z');
    expect(() => formatNaiveLocal('not a time', 'UTC')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('an unknown time zone is INVALID_ARGUMENT', () => {
    expect(() => checkTimeZone('Nowhere/Special')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(checkTimeZone('Europe/Lisbon')).toBe('Europe/Lisbon');
  });
});

describe('interchange JSON text', () => {
  it('gives the line of a syntax error, and the last line when the text ends early', () => {
    expect(parseJson('{\n"a": 1,\n}')).toMatchObject({ ok: false, problem: { code: 'CORRUPT', line: 3 } });
    expect(parseJson('{\n"a": [1,\n2')).toMatchObject({ ok: false, problem: { code: 'CORRUPT', line: 3 } });
    expect(parseJson('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('finds the line of a key', () => {
    expect(lineOfKey('{\n"a": 1,\n"b.c": []\n}', 'b.c')).toBe(3);
    expect(lineOfKey('{"a": 1}', 'absent')).toBe(1);
    expect(lineAt('a\nb\nc', 4)).toBe(3);
  });
});

describe('exporters: the file system refusing', () => {
  it('is STORAGE_FAILED naming the file, for Penguin and goaitools', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'export-fail-'));
    try {
      const file = join(dir, 'a-file');
      await writeFile(file, 'x');
      const session = Session.create({ id: 's1' });
      async function* one() {
        yield session;
      }
      for (const system of ['penguin', 'goaitools']) {
        await expect((await exporterFor(system)).write(one(), join(file, 'under'))).rejects.toMatchObject({
          code: 'STORAGE_FAILED',
          message: expect.stringContaining('a-file'),
        });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
