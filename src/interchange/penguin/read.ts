/**
 * The Penguin importer: a `conversations/` directory (seed-formats.md §1.1, §1.6, §1.8) — session
 * files, `.bak` backups when a primary is missing or damaged, per-agent subdirectories, the index
 * read as a cache — or one session file of such a directory. Streams one session at a time; a
 * damaged file is a problem beside the others.
 * @module
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { errorMessage } from '../../errors.js';
import type { JsonValue } from '../../message/schema.js';
import { json, problemFrom } from '../build.js';
import { isObject, parseJson, type JsonProblem } from '../json-text.js';
import { expecting, sourceKind } from '../source-path.js';
import { checkTimeZone, processTimeZone } from '../timestamps.js';
import type { ImportItem, ImportOptions, Importer, SourcePlace } from '../types.js';
import { checkSessionFile, penguinSessionItem, type PenguinFile } from './session.js';

const INDEX = 'session_index.json';
/** What the importer reads, for its messages. */
const EXPECTED = 'a Penguin conversations/ directory, or one of its session files (<id>.json)';
/** What a session file must hold, for the problems of one that does not. */
const EXPECTED_FILE = 'a Penguin session file (<id>.json: a JSON object with "id" and "messages")';
// Full tool outputs, referenced by tool-result records: never an agent store (§1.1).
const NOT_AN_AGENT = 'tool-results';

/** One store: the root or an agent's subdirectory. */
interface Store {
  readonly directory: string;
  readonly agent?: string;
}

/** One session's files: the primary, and the backup tried when the primary is missing or damaged. */
interface SessionFiles {
  /** The file's stem (the id Penguin would use). */
  readonly stem: string;
  readonly primary: string;
  readonly backup?: string;
}

/** The files of session `stem` in `directory`. */
function filesOf(directory: string, stem: string): SessionFiles {
  return { stem, primary: join(directory, `${stem}.json`), backup: join(directory, `${stem}.json.bak`) };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Session stems of a store: `<id>.json` and `<id>.json.bak` files (`.temp` files are never read). */
async function stemsOf(directory: string): Promise<string[]> {
  const stems = new Set<string>();
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === INDEX) continue;
    if (entry.name.endsWith('.json')) stems.add(entry.name.slice(0, -'.json'.length));
    else if (entry.name.endsWith('.json.bak')) stems.add(entry.name.slice(0, -'.json.bak'.length));
  }
  return [...stems].sort();
}

/** True when a subdirectory is an agent store: it has an index, or a session file (top-level `id` and `messages`). */
async function isAgentStore(directory: string): Promise<boolean> {
  if (await exists(join(directory, INDEX))) return true;
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const parsed = parseJson(await readFile(join(directory, entry.name), 'utf8'));
    if (parsed.ok && isObject(parsed.value) && 'id' in parsed.value && 'messages' in parsed.value) return true;
  }
  return false;
}

async function storesOf(root: string): Promise<Store[]> {
  const stores: Store[] = [{ directory: root }];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === NOT_AN_AGENT) continue;
    const directory = join(root, entry.name);
    if (await isAgentStore(directory)) stores.push({ directory, agent: entry.name });
  }
  return stores;
}

/** The index as an object (a cache: a damaged or absent one is an empty one). */
async function readIndex(directory: string): Promise<Record<string, unknown>> {
  try {
    const parsed = parseJson(await readFile(join(directory, INDEX), 'utf8'));
    return parsed.ok && isObject(parsed.value) ? parsed.value : {};
  } catch {
    return {};
  }
}

type Attempt = { ok: true; file: PenguinFile; modified: string } | { ok: false; problem: JsonProblem; missing?: true };

async function attempt(path: string): Promise<Attempt> {
  let text: string;
  let modified: string;
  try {
    [text, modified] = await Promise.all([readFile(path, 'utf8'), stat(path).then((info) => info.mtime.toISOString())]);
  } catch (error) {
    return { ok: false, missing: true, problem: { code: 'NOT_FOUND', message: errorMessage(error), line: 1 } };
  }
  const checked = checkSessionFile(text);
  return checked.ok ? { ...checked, modified } : checked;
}

/** Follows `continued_from` links through a store's files (quirk 11: the depth is recomputed, not read). */
function depthFinder(directory: string): {
  depthOf: (id: string) => number;
  note: (id: string, from: string | undefined) => void;
  preload: (ids: readonly string[]) => Promise<void>;
} {
  const links = new Map<string, string | undefined>();
  const fromOf = (metadata: unknown) =>
    isObject(metadata) && typeof metadata.continued_from === 'string' ? metadata.continued_from : undefined;
  return {
    note: (id, from) => links.set(id, from),
    // Reads the chain above each id not seen yet (ids are sorted by time, so this is rare).
    preload: async (ids) => {
      const queue = [...ids];
      while (queue.length > 0) {
        const id = queue.pop() as string;
        if (links.has(id)) continue;
        const read = await attempt(join(directory, `${id}.json`));
        const from = read.ok ? fromOf(read.file.data.metadata) : undefined;
        links.set(id, from);
        if (from !== undefined) queue.push(from);
      }
    },
    depthOf: (id) => {
      const seen = new Set<string>();
      let depth = 0;
      for (let at: string | undefined = links.get(id); at !== undefined && !seen.has(at); at = links.get(at)) {
        seen.add(at);
        depth++;
      }
      return depth;
    },
  };
}

/**
 * The sessions of `store`: every one of its files, then the index entries without one (index
 * drift); or only the session `only` (one file given), without the index drift.
 */
async function* readStore(
  store: Store,
  timeZone: string,
  options: ImportOptions,
  only?: SessionFiles,
): AsyncGenerator<ImportItem> {
  const index = await readIndex(store.directory);
  const stems = only === undefined ? await stemsOf(store.directory) : [only.stem];
  const chain = depthFinder(store.directory);
  for (const stem of stems) {
    if (options.signal?.aborted === true) return;
    const files = only ?? filesOf(store.directory, stem);
    const primaryPath = files.primary;
    let chosen = await attempt(primaryPath);
    let place: SourcePlace = { path: primaryPath, record: stem };
    let restoredFromBackup: { reason: string; line?: number } | undefined;
    if (!chosen.ok) {
      if (files.backup === undefined) {
        yield {
          kind: 'problem',
          ...problemOf(chosen.problem),
          source: { path: primaryPath, line: chosen.problem.line, record: stem },
        };
        continue;
      }
      const backupPath = files.backup;
      // Quirk 8: a missing or damaged primary falls back to its backup (Penguin itself never tries it when missing).
      const backup = await attempt(backupPath);
      if (backup.ok) {
        restoredFromBackup = chosen.missing
          ? { reason: 'is missing' }
          : {
              reason: `is damaged (line ${chosen.problem.line}: ${chosen.problem.message})`,
              line: chosen.problem.line,
            };
        chosen = backup;
        place = { path: backupPath, record: stem };
      } else {
        // The backup's problem when only the backup is there; else the primary's (a file given alone
        // that cannot be read has no backup either).
        const onlyBackup = chosen.missing === true && backup.missing !== true;
        const bad = onlyBackup ? backup : chosen;
        const path = onlyBackup ? backupPath : primaryPath;
        if (!bad.ok)
          yield { kind: 'problem', ...problemOf(bad.problem), source: { path, line: bad.problem.line, record: stem } };
        continue;
      }
    }
    const file = chosen.file;
    const from =
      isObject(file.data.metadata) && typeof file.data.metadata.continued_from === 'string'
        ? file.data.metadata.continued_from
        : undefined;
    const penguinId = typeof file.data.id === 'string' && file.data.id.length > 0 ? file.data.id : stem;
    chain.note(penguinId, from);
    if (from !== undefined) await chain.preload([from]);
    const indexEntry: JsonValue | undefined = Object.hasOwn(index, penguinId) ? json(index[penguinId]) : undefined;
    try {
      yield penguinSessionItem(file, {
        stem,
        ...(store.agent === undefined ? {} : { agentDirectory: store.agent }),
        timeZone,
        ...(indexEntry === undefined ? {} : { indexEntry }),
        modified: chosen.modified,
        depthOf: chain.depthOf,
        ...(restoredFromBackup === undefined ? {} : { restoredFromBackup }),
        source: place,
      });
    } catch (error) {
      yield problemFrom(error, place);
    }
  }
  // Index drift (quirk 9): an entry without a file is a recovery session Penguin never saved, or a deleted one.
  if (only !== undefined) return;
  const present = new Set(stems);
  for (const [id, entry] of Object.entries(index)) {
    if (present.has(id)) continue;
    const recovered =
      isObject(entry) && typeof entry.recovered_from === 'string' ? ` (recovery of ${entry.recovered_from})` : '';
    yield {
      kind: 'problem',
      code: 'NOT_FOUND',
      message: `The index lists session ${JSON.stringify(id)}${recovered}, which has no file: nothing to import`,
      source: { path: join(store.directory, INDEX), record: id },
    };
  }
}

/** The code and message of a file refused for its content, saying what a session file must be. */
function problemOf(problem: JsonProblem): { code: JsonProblem['code']; message: string } {
  const { code, message } = expecting(problem, EXPECTED_FILE);
  return { code, message };
}

/**
 * The store a session file given alone belongs to: an agent's subdirectory when its directory
 * sits in a Penguin root (one with an index) and is not the root itself, so that its session gets
 * the same id as when the whole directory is imported; else a root store.
 */
async function storeOfFile(path: string): Promise<Store> {
  const directory = dirname(path);
  const name = basename(directory);
  if (name === 'conversations' || name === NOT_AN_AGENT) return { directory };
  return (await exists(join(dirname(directory), INDEX))) ? { directory, agent: name } : { directory };
}

/** The files of the session file at `path`: `<id>.json` falls back to its `.bak`; another file is read alone. */
function filesOfPath(path: string): SessionFiles {
  const name = basename(path);
  if (name.endsWith('.json') && name.length > '.json'.length)
    return { stem: name.slice(0, -'.json'.length), primary: path, backup: `${path}.bak` };
  if (name.endsWith('.json.bak') && name.length > '.json.bak'.length)
    return { stem: name.slice(0, -'.json.bak'.length), primary: path };
  return { stem: basename(name, extname(name)) || name, primary: path };
}

async function* readPenguin(path: string, options: ImportOptions = {}): AsyncGenerator<ImportItem> {
  const timeZone = checkTimeZone(options.timeZone ?? processTimeZone());
  const kind = await sourceKind(path, { system: 'penguin', expected: EXPECTED, kinds: ['directory', 'file'] });
  if (kind === 'file') {
    yield* readStore(await storeOfFile(path), timeZone, options, filesOfPath(path));
    return;
  }
  let stores: Store[];
  try {
    stores = await storesOf(path);
  } catch (error) {
    yield {
      kind: 'problem',
      code: 'NOT_FOUND',
      message: `Cannot read the directory: ${errorMessage(error)}; expected ${EXPECTED}`,
      source: { path },
    };
    return;
  }
  for (const store of stores) yield* readStore(store, timeZone, options);
}

/** Reads a Penguin `conversations/` directory, or one session file of it. */
export const penguinImporter: Importer = Object.freeze({
  system: 'penguin',
  describe:
    'a Penguin conversations/ directory (session_index.json, <id>.json sessions, .bak backups, per-agent subdirectories), or one <id>.json session file',
  read: readPenguin,
});
