/**
 * The Magent importer (seed-formats.md §2): saved session files, or a sessions directory (global,
 * `projects/<sha1>/`, v6 `global/` and `actions/<name>/`). The generation is told by its keys
 * (quirk 1): G0 (`timestamp`, newest first, `%z` offsets without a colon), G1 (`buffer-content`),
 * v2–v5 (`schema-version`), v6 (the turn ledger).
 * @module
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { errorMessage } from '../../errors.js';
import type { JsonValue } from '../../message/schema.js';
import { compact, json, materialize, problemFrom, sessionIdOr, sessionItem, type Draft } from '../build.js';
import { isObject, lineOfKey, parseJson, type JsonProblem } from '../json-text.js';
import { expecting, sourceKind } from '../source-path.js';
import { readCompactOffset, readEpochSeconds } from '../timestamps.js';
import type { ImportItem, ImportOptions, ImportRepair, Importer, SourcePlace } from '../types.js';
import { chronologicalDrafts, g0Drafts } from './chat.js';
import { ledgerDrafts, present } from './ledger.js';

/** A file's generation (§2.1), told by its keys only. */
export type Generation = 'G0' | 'G1' | 'v2-v5' | 'v6';

/** The generation of a parsed file, or undefined when it is none of Magent's. */
export function generationOf(data: Record<string, unknown>): Generation | undefined {
  if ('timestamp' in data) return 'G0';
  const version = data['schema-version'];
  if (version === 6) return 'v6';
  if (typeof version === 'number' && version >= 2 && version <= 5) return 'v2-v5';
  if (version === undefined && 'buffer-content' in data) return 'G1';
  return undefined;
}

/** Where a file sits, as Magent's layout says (quirk 9). */
function placeOf(root: string, path: string): JsonValue {
  const parts = relative(root, path).split(sep).slice(0, -1);
  if (parts[0] === 'projects' && parts[1] !== undefined) return { scope: 'project', projectHash: parts[1] };
  if (parts[0] === 'actions' && parts[1] !== undefined) return { scope: 'action', action: parts[1] };
  return { scope: 'global' };
}

/** What the importer reads, for its messages. */
const EXPECTED = 'a Magent saved session .json file, or its sessions directory';
/** What a session file must hold, for the problems of one that does not. */
const EXPECTED_FILE = 'a Magent saved session (a JSON object with timestamp, buffer-content or schema-version)';

const fail = (problem: JsonProblem): { ok: false; problem: JsonProblem } => ({ ok: false, problem });

/** The item of one file's text. */
export function magentItem(text: string, modified: string, place: JsonValue, source: SourcePlace): ImportItem {
  const parsed = parseJson(text);
  const problem = (found: JsonProblem): ImportItem => ({
    kind: 'problem',
    code: found.code,
    message: found.message,
    source: { ...source, line: found.line },
  });
  // Not a Magent session at all: the problem says what one is.
  const notMagent = (found: JsonProblem): ImportItem => problem(expecting(found, EXPECTED_FILE));
  if (!parsed.ok) return notMagent(parsed.problem);
  if (!isObject(parsed.value))
    return notMagent({ code: 'INVALID_ARGUMENT', message: 'A Magent session must be a JSON object', line: 1 });
  const data = parsed.value;
  const generation = generationOf(data);
  if (generation === undefined)
    return notMagent({
      code: 'INVALID_ARGUMENT',
      message: 'Not a Magent session: it has no timestamp, buffer-content or known schema-version',
      line: lineOfKey(text, 'schema-version'),
    });
  const checked = check(text, data, generation);
  if (!checked.ok) return problem(checked.problem);
  const stem = basename(source.path).replace(/\.json$/, '');
  const id = sessionIdOr(typeof data.id === 'string' ? data.id : stem, stem);
  const repairs: ImportRepair[] = [];
  let drafts: Draft[];
  let createdAt = modified;
  let updatedAt = modified;
  let turns: JsonValue[] | undefined;
  const known = ['id', 'messages'];
  if (generation === 'G0') {
    // Quirk 3: the save time, with an explicit ±HHMM rule.
    createdAt = updatedAt = checked.saved ?? modified;
    drafts = g0Drafts((data.messages ?? []) as unknown[], { sessionId: id.id, timestamp: createdAt, repairs });
    known.push('timestamp');
  } else if (generation === 'v6') {
    const snapshot = data.snapshot as Record<string, unknown>;
    createdAt = readEpochSeconds(present(snapshot['created-at'])) ?? modified;
    updatedAt = readEpochSeconds(present(snapshot['updated-at'])) ?? createdAt;
    const read = ledgerDrafts(snapshot.turns as unknown[], id.id, createdAt);
    drafts = read.drafts;
    turns = read.turns;
  } else {
    drafts = chronologicalDrafts(data.messages as unknown[], { sessionId: id.id, timestamp: modified, repairs });
  }
  const { messages, skipped } = materialize(drafts, 'magent', repairs);
  const extra = Object.fromEntries(Object.entries(data).filter(([key]) => !known.includes(key)));
  if (generation === 'v6' && isObject(extra.snapshot)) {
    const { turns: _turns, ...snapshot } = extra.snapshot;
    extra.snapshot = snapshot;
  }
  const magent = compact({
    generation,
    sessionId: id.derived ? json(data.id ?? stem) : undefined,
    place,
    savedAt: generation === 'G0' ? json(data.timestamp) : undefined,
    timestampsFromFile: generation === 'G1' || generation === 'v2-v5' ? true : undefined,
    turns,
    extra: Object.keys(extra).length > 0 ? json(extra) : undefined,
    skipped: skipped.length > 0 ? skipped : undefined,
  });
  return sessionItem({ id: id.id, createdAt, updatedAt, metadata: { magent } }, messages, repairs, {
    ...source,
    record: id.id,
  });
}

function check(
  text: string,
  data: Record<string, unknown>,
  generation: Generation,
): { ok: true; saved?: string } | { ok: false; problem: JsonProblem } {
  const wrong = (key: string, expected: string) =>
    fail({
      code: 'INVALID_ARGUMENT',
      message: `${JSON.stringify(key)} must be ${expected}`,
      line: lineOfKey(text, key),
    });
  if (data.id !== undefined && typeof data.id !== 'string') return wrong('id', 'a string');
  if (generation === 'G0') {
    // Quirk 2: an empty session is `"messages": null`.
    if (data.messages !== null && data.messages !== undefined && !Array.isArray(data.messages))
      return wrong('messages', 'an array or null');
    const saved = typeof data.timestamp === 'string' ? readCompactOffset(data.timestamp) : undefined;
    if (saved === undefined) return wrong('timestamp', 'a time such as 2025-02-21T14:30:15-0800');
    return { ok: true, saved };
  }
  if (generation === 'v6') {
    const snapshot = data.snapshot;
    if (!isObject(snapshot)) return wrong('snapshot', 'an object');
    if (!Array.isArray(snapshot.turns)) return wrong('turns', 'an array');
    return { ok: true };
  }
  if (!Array.isArray(data.messages)) return wrong('messages', 'an array');
  return { ok: true };
}

async function* readOne(root: string, path: string): AsyncGenerator<ImportItem> {
  let text: string;
  let modified: string;
  try {
    [text, modified] = await Promise.all([readFile(path, 'utf8'), stat(path).then((info) => info.mtime.toISOString())]);
  } catch (error) {
    yield { kind: 'problem', code: 'NOT_FOUND', message: errorMessage(error), source: { path } };
    return;
  }
  try {
    yield magentItem(text, modified, placeOf(root, path), { path });
  } catch (error) {
    yield problemFrom(error, { path });
  }
}

/** Session files under `directory`, sorted: the base, then `projects/*`, `global`, `actions/*` (temp files left out). */
async function filesOf(directory: string, depth = 0): Promise<string[]> {
  const files: string[] = [];
  const entries = (await readdir(directory, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(directory, entry.name);
    if (entry.isFile() && entry.name.endsWith('.json')) files.push(path);
    else if (entry.isDirectory() && depth < 2) files.push(...(await filesOf(path, depth + 1)));
  }
  return files;
}

async function* readMagent(path: string, options: ImportOptions = {}): AsyncGenerator<ImportItem> {
  const kind = await sourceKind(path, { system: 'magent', expected: EXPECTED, kinds: ['file', 'directory'] });
  if (kind === 'file') {
    yield* readOne(join(path, '..'), path);
    return;
  }
  for (const file of await filesOf(path)) {
    if (options.signal?.aborted === true) return;
    yield* readOne(path, file);
  }
}

/** Reads Magent saved sessions. */
export const magentImporter: Importer = Object.freeze({
  system: 'magent',
  describe: 'a Magent saved session .json file, or its sessions directory (projects/, global/, actions/ included)',
  read: readMagent,
});
