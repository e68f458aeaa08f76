/**
 * Importers at the extremes of every number their sources hold: each JSON file the fixtures write
 * for Penguin, Magent, Coreason and goaitools has each of its numbers (and each timestamp) swapped
 * in turn for an extreme value (seeded sample). The importer must answer every swap with a
 * session or a typed problem — never a crash or an untyped error — and a session it yields must
 * save into a store and load back as it was: numbers past the bounds are refused where they enter
 * (`src/bounds.ts`), not written and found broken later.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { openStore } from '../../src/index.js';
import { importerFor } from '../../src/interchange/index.js';
import { seededRandom } from '../support/seeded-random.js';
import { writeCoreasonDumps } from '../fixtures/interchange/coreason/make.js';
import { writeGoaitoolsBlobs } from '../fixtures/interchange/goaitools/make.js';
import { writeMagentSessions } from '../fixtures/interchange/magent/make.js';
import { writePenguinDirectory } from '../fixtures/interchange/penguin/make.js';

const EXTREME_NUMBERS = [-1, 0.5, 2 ** 48 + 1, 2 ** 53 + 2, -(2 ** 53), 1e308, -1e308, 8.64e15 + 1];
const EXTREME_TIMES = [
  '275760-09-13T00:00:01Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:60Z',
  '2026-02-30T00:00:00Z',
];
/** Swaps tried per system (a seeded sample of every number and time of its files). */
const SWAPS = 60;

const root = await mkdtemp(join(tmpdir(), 'chatstate-import-extremes-'));
afterAll(() => rm(root, { recursive: true, force: true }));

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(dir)) {
    const full = join(dir, name);
    if ((await stat(full)).isDirectory()) found.push(...(await filesUnder(full)));
    else found.push(full);
  }
  return found;
}

type Path = ReadonlyArray<string | number>;

/** Paths of every number and every timestamp-looking string in `value`. */
function leaves(value: unknown, path: Path = []): Array<{ path: Path; kind: 'number' | 'time' }> {
  if (typeof value === 'number') return [{ path, kind: 'number' }];
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}/.test(value) ? [{ path, kind: 'time' }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, [...path, index]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]));
  return [];
}

function withValue(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(value))
    return value.map((item, index) => (index === head ? withValue(item, rest, replacement) : item));
  return {
    ...(value as Record<string, unknown>),
    [head]: withValue((value as Record<string, unknown>)[head], rest, replacement),
  };
}

const SYSTEMS: ReadonlyArray<[string, (dir: string) => Promise<void>]> = [
  ['penguin', writePenguinDirectory],
  ['magent', writeMagentSessions],
  ['coreason', writeCoreasonDumps],
  ['goaitools', writeGoaitoolsBlobs],
];

describe('importers at number extremes', () => {
  it.each(SYSTEMS)(
    '%s: every swap gives a session that saves and loads back, or a typed problem',
    async (system, write) => {
      const fixture = join(root, `${system}-fixture`);
      await mkdir(fixture);
      await write(fixture);
      const swaps: Array<{ file: string; text: string }> = [];
      for (const file of await filesUnder(fixture)) {
        let json: unknown;
        try {
          json = JSON.parse(await readFile(file, 'utf8'));
        } catch {
          continue; // The fixtures' damaged files stay damaged: they are not what this test swaps in.
        }
        for (const leaf of leaves(json))
          for (const extreme of leaf.kind === 'number' ? EXTREME_NUMBERS : EXTREME_TIMES)
            swaps.push({ file, text: JSON.stringify(withValue(json, leaf.path, extreme)) });
      }
      expect(swaps.length).toBeGreaterThan(20);
      const random = seededRandom(2026);
      const sample = Array.from(
        { length: Math.min(SWAPS, swaps.length) },
        () => swaps[Math.floor(random() * swaps.length)],
      );
      const importer = await importerFor(system);
      const store = await openStore('memory:');
      let sessions = 0;
      let problems = 0;
      try {
        for (const [index, swap] of sample.entries()) {
          if (swap === undefined) continue;
          const dir = join(root, `${system}-${index}`);
          const target = join(dir, relative(fixture, swap.file));
          await mkdir(join(target, '..'), { recursive: true });
          await writeFile(target, swap.text);
          try {
            for await (const item of importer.read(dir)) {
              if (item.kind === 'problem') {
                problems += 1;
                continue;
              }
              sessions += 1;
              try {
                const saved = await store.save(item.session, { keepUpdatedAt: true });
                expect((await store.load(saved.id)).toJSON()).toEqual(saved.toJSON());
                await store.delete(saved.id);
              } catch (error) {
                if (!(error instanceof ChatstateError)) throw error;
                problems += 1;
              }
            }
          } catch (error) {
            // A source refused whole is a typed error too; anything else is a crash.
            if (!(error instanceof ChatstateError))
              throw new Error(`${system} swap ${index} (${target}): ${String(error)}`, { cause: error });
            problems += 1;
          }
        }
      } finally {
        await store.close();
      }
      // Both answers happen: some extremes are readable values (a small negative count, a far date), others are refused.
      expect(sessions).toBeGreaterThan(0);
      expect(problems).toBeGreaterThan(0);
    },
  );
});
