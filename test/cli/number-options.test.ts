/**
 * Every number the CLI takes is bounded where it enters: each integer option of every command
 * (found by walking the program, so a new option is covered without a new test) refuses values
 * past its bounds and values that are not plain integers with a usage error (exit 2) naming the
 * option, before the command touches the store, and every option that takes a number has a
 * bounded parser. Sequence ranges are bounded by the largest sequence number.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Command, Option } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SEQ } from '../../src/bounds.js';
import type { IntegerParser } from '../../src/cli/arguments.js';
import { createProgram, run } from '../../src/cli/main.js';
import { Message, Session, openStore } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'chatstate-cli-numbers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = `file:${join(dir, 'store')}`;

async function cli(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  stdout.resume();
  const code = await run(['--store', store, '-q', ...args], {
    stdin: Readable.from([]),
    stdout,
    stderr,
    env: {},
  });
  return { code, stderr: Buffer.concat(chunks).toString('utf8') };
}

/** Every file under the store's directory with its bytes: what a refused command must leave alone. */
function snapshot(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.set(full, readFileSync(full).toString('base64'));
    }
  };
  walk(dir);
  return files;
}

function isIntegerParser(parser: unknown): parser is IntegerParser {
  return typeof parser === 'function' && typeof (parser as Partial<IntegerParser>).max === 'number';
}

/** Every command path (`['knowledge', 'remember']`) with its options. */
function commands(command: Command, path: string[] = []): Array<{ path: string[]; options: readonly Option[] }> {
  return command.commands.flatMap((sub) => [
    { path: [...path, sub.name()], options: sub.options },
    ...commands(sub, [...path, sub.name()]),
  ]);
}

const program = createProgram({
  io: { stdin: Readable.from([]), stdout: new PassThrough(), stderr: new PassThrough(), env: {} },
  exitCode: 0,
});
const numeric = commands(program).flatMap(({ path, options }) =>
  options
    .filter((option) => /<n>|<ms>|<bytes>|<count>/.test(option.flags))
    .map((option) => ({ path, option, parser: (option as Option & { parseArg?: unknown }).parseArg })),
);

describe("the CLI's number options", () => {
  it('are all parsed by a bounded integer parser', () => {
    expect(numeric.length).toBeGreaterThan(15);
    const unbounded = numeric
      .filter(({ parser }) => !isIntegerParser(parser))
      .map(({ path, option }) => `${path.join(' ')} ${option.long}`);
    expect(unbounded).toEqual([]);
  });

  it('refuse extremes and non-integers with a usage error naming the option, and write nothing', async () => {
    // A store with one session, so that a command that wrongly ran would have something to change.
    const opened = await openStore(store);
    await opened.save(Session.create({ id: 'kept', userId: 'u1', messages: [Message.user('hello')] }));
    await opened.close();
    const before = snapshot();
    for (const { path, option, parser } of numeric) {
      if (!isIntegerParser(parser)) continue;
      const bad = [
        String(parser.min - 1),
        String(parser.max + 1),
        '9007199254740993',
        '1e3',
        '1.5',
        '0x10',
        'NaN',
        'Infinity',
        '',
        '١٢',
      ];
      for (const value of bad) {
        const { code, stderr } = await cli([...path, option.long as string, value]);
        expect({ option: `${path.join(' ')} ${option.long} ${JSON.stringify(value)}`, code }).toEqual({
          option: `${path.join(' ')} ${option.long} ${JSON.stringify(value)}`,
          code: 2,
        });
        expect(stderr).toContain(option.long as string);
        expect(stderr).not.toMatch(/\n\s+at /);
      }
      expect(parser(String(parser.min))).toBe(parser.min);
      expect(parser(String(parser.max))).toBe(parser.max);
    }
    expect(snapshot()).toEqual(before);
  });

  it('refuse a sequence range past the largest sequence number', async () => {
    const { code, stderr } = await cli(['show', 'any-session', '--range', `${MAX_SEQ + 1}..`]);
    expect(code).toBe(2);
    expect(stderr).toContain(String(MAX_SEQ));
  });
});
