/**
 * Forgetting a user in the file store: every file that held them goes, not only the sessions a
 * listing shows. Besides the user's sessions (snapshot, backup, journals, high-water mark) and
 * their values, that is the files no listing reaches:
 *
 * - a session directory whose head cannot be read (damaged), when its bytes name the user;
 * - lost+found entries (damaged files kept aside) of the user's sessions, or whose bytes name the
 *   user — and the recovery session that took the place of a lost session of theirs;
 * - what a crash left: `.trash-*` removals cut short, temporary value files, index temporaries.
 *
 * Every step can be cut short by a crash and run again: a session's values go before the session
 * (so a cut run still finds the session), and each removal is a rename away or an unlink.
 * @module
 */
import path from 'node:path';
import { isMissing, removeTree, unlinkIfPresent } from './fs-util.js';
import { hasWaiters, processIsGone, tryLock, unlock } from './lock.js';
import { nodeFileSystem } from './file-system.js';
import { decodeName, type StorePaths } from './paths.js';
import { FOREIGN_STALE_MS } from './tuning.js';
import { removeTrashIn } from './value-files.js';

/** The bytes by which a file names its owner: the head's `"userId":"…"` field, as the store writes it. */
export function ownerMark(userId: string): Buffer {
  return Buffer.from(`"userId":${JSON.stringify(userId)}`, 'utf8');
}

/** Every file under `dir` (recursively), or `dir` itself when it is a file. */
function filesUnder(fs: StorePaths['fs'], dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    // Before `isMissing`, which takes ENOTDIR for a missing entry too: here it means a file.
    if ((error as { code?: string }).code === 'ENOTDIR') return [dir];
    if (isMissing(error)) return [];
    throw error;
  }
  return names.flatMap((name) => filesUnder(fs, path.join(dir, name)));
}

/** True when some file under `dir` holds `mark`. */
export function mentions(fs: StorePaths['fs'], dir: string, mark: Buffer): boolean {
  return filesUnder(fs, dir).some((file) => {
    try {
      return fs.readFileSync(file).includes(mark);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  });
}

/** Session directories that no listing showed (their head did not read) and whose files name the user. */
export function unlistedSessionsOf(paths: StorePaths, listed: ReadonlySet<string>, mark: Buffer): string[] {
  const { fs } = paths;
  let names: string[];
  try {
    names = fs.readdirSync(paths.sessions);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const found: string[] = [];
  for (const name of names) {
    const id = decodeName(name);
    if (id === undefined || listed.has(id)) continue;
    if (mentions(fs, path.join(paths.sessions, name), mark)) found.push(id);
  }
  return found;
}

/**
 * Removes the lost+found entries of sessions `removed` and those whose files name the user;
 * returns the files removed and the ids of the sessions whose entries those were (a recovery
 * session in such a session's place held the user's session before it was lost).
 */
export async function removeLostAndFound(
  paths: StorePaths,
  removed: ReadonlySet<string>,
  mark: Buffer,
): Promise<{ files: number; sessions: Set<string> }> {
  const { fs } = paths;
  const result = { files: 0, sessions: new Set<string>() };
  let entries: string[];
  try {
    entries = fs.readdirSync(paths.lostAndFound);
  } catch (error) {
    if (isMissing(error)) return result;
    throw error;
  }
  for (const entry of entries) {
    // `<session name>.<stamp>.<random>` (see session-dir.ts): the session name has no `.` before the stamp's.
    const id = decodeName(entry.replace(/\.[0-9T-]+Z\.[0-9a-f]+$/, ''));
    const dir = path.join(paths.lostAndFound, entry);
    if (!(id !== undefined && removed.has(id)) && !mentions(fs, dir, mark)) continue;
    result.files += filesUnder(fs, dir).length;
    if (id !== undefined) result.sessions.add(id);
    await removeTree(fs, dir);
  }
  return result;
}

/**
 * Removes what crashed writers and removals left: `.trash-*` under `sessions/`, index
 * temporaries of processes that are gone, and locks (and wait markers) of sessions that no longer
 * exist whose holder is gone; returns how many entries.
 */
export async function removeLeftovers(paths: StorePaths): Promise<number> {
  const { fs } = paths;
  let count = await removeTrashIn(fs, paths.sessions);
  let names: string[];
  try {
    names = fs.readdirSync(paths.root);
  } catch (error) {
    if (isMissing(error)) return count;
    throw error;
  }
  for (const name of names) {
    const temporary = /^index\.tmp-([0-9]+)-/.exec(name);
    if (temporary === null) continue;
    const pid = Number(temporary[1]);
    if (pid === process.pid || !processIsGone(pid)) continue;
    unlinkIfPresent(fs, path.join(paths.root, name));
    count += 1;
  }
  return count + removeDeadLocks(paths);
}

/**
 * Locks are named by their session (`<name>#write`, `#fold`, `…-waiting`): one that a killed
 * process held when its session was removed outlives it, and its name is the session id. Broken
 * here when the session is gone and no live process holds it; returns how many went.
 */
function removeDeadLocks(paths: StorePaths): number {
  let names: string[];
  try {
    // Locks live on the real file system, whatever layer sessions go through (see file-system.ts).
    names = nodeFileSystem.readdirSync(paths.locks);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  let count = 0;
  for (const name of names) {
    const found = /^(.+)#(?:write|fold)(-waiting)?$/.exec(name);
    const session = found?.[1];
    if (found === null || session === undefined || decodeName(session) === undefined) continue;
    if (paths.fs.existsSync(path.join(paths.sessions, session))) continue;
    const file = path.join(paths.locks, name);
    if (found[2] !== undefined) {
      // Checking for waiters removes the marker of a waiter that is gone.
      hasWaiters(file.slice(0, -'-waiting'.length), { foreignStaleMs: FOREIGN_STALE_MS });
    } else {
      const held = tryLock(file, { foreignStaleMs: FOREIGN_STALE_MS });
      if (held !== undefined) unlock(held);
    }
    if (!nodeFileSystem.existsSync(file)) count += 1;
  }
  return count;
}
