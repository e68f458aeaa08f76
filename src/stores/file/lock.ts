/**
 * Inter-process locks for the file store, with nothing but `node:fs`.
 *
 * A lock is a directory entry whose content names its owner (pid, host, boot id, a random nonce):
 * creating an entry is atomic and fails when one exists, and the owner is in place in the same
 * step, so no process ever sees a lock without an owner. By default the entry is a hard link to
 * an owner file this process wrote once in the locks directory: a link costs a directory entry
 * and no new inode, so taking and releasing a lock is a few microseconds, and the journal fsync
 * that follows commits next to nothing beside its own data. Where hard links are refused, a
 * symbolic link whose target is the owner text is used; where those are refused too (Windows
 * without developer mode), an exclusively created file holding the same text.
 *
 * A lock whose owner died (same host and boot, no such process) is stale and is broken: the
 * breaker renames it to a private name, checks that what it moved is the stale lock it saw, and
 * otherwise puts it back. Locks of another host are trusted for `foreignStaleMs` after their
 * owner last took or released a lock.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UnavailableError } from '../../errors.js';
import { errorCode, isMissing, unlinkIfPresent } from './fs-util.js';
import { LOCK_ATTEMPTS, LOCK_POLL_FIRST_MS, LOCK_POLL_MAX_MS, UNWRITTEN_STALE_MS } from './tuning.js';

/** Who holds a lock: its process, a digest of its host name and of its boot id, and a nonce. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly boot: string;
  readonly nonce: string;
}

/** How locks are made. */
export type LockMode = 'link' | 'symlink' | 'file';

/** Options of the lock functions. */
export interface LockOptions {
  /** Give up after this many milliseconds. */
  readonly timeoutMs: number;
  /** Locks of another host are stale after this many milliseconds. */
  readonly foreignStaleMs: number;
  /** Store name, for error messages. */
  readonly store: string;
}

// Short digests: the whole owner fits in 59 bytes, so on ext4 (and most file systems) a symbolic
// link lock is stored inside its inode.
const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
const BOOT = createHash('sha256').update(readBootId()).digest('hex').slice(0, 8);
const OWNER_PATTERN = /^cs1 ([0-9]{1,10}) ([0-9a-f]{8}) ([0-9a-f]{8}) ([0-9a-f]{12})$/;
/** Prefix of owner files; session and value lock names never start with a dot. */
const OWNER_PREFIX = '.owner-';

function readBootId(): string {
  try {
    // Linux: changes on every boot, so a lock left by a power loss is recognized even if its pid is reused.
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

let detectedMode: LockMode | undefined;

/** A held lock. */
export interface HeldLock {
  readonly path: string;
  readonly owner: LockOwner;
  readonly mode: LockMode;
  /** Link mode: the owner file's inode the lock is a link to. */
  readonly inode?: { readonly dev: number; readonly ino: number };
}

/** The text of a lock: `cs1 <pid> <host> <boot> <nonce>`. */
export function ownerText(owner: LockOwner): string {
  return `cs1 ${owner.pid} ${owner.host} ${owner.boot} ${owner.nonce}`;
}

function parseOwner(text: string): LockOwner | undefined {
  // Anything else is handled as an owner that has not written itself yet.
  const match = OWNER_PATTERN.exec(text);
  if (match === null) return undefined;
  return { pid: Number(match[1]), host: match[2] as string, boot: match[3] as string, nonce: match[4] as string };
}

/** The owner this process writes into its locks (with `nonce`): for tests that plant locks. */
export function ownerOf(pid: number, nonce: string, host = os.hostname()): LockOwner {
  return { pid, host: createHash('sha256').update(host).digest('hex').slice(0, 8), boot: BOOT, nonce };
}

function newOwner(): LockOwner {
  return { pid: process.pid, host: HOST, boot: BOOT, nonce: randomBytes(6).toString('hex') };
}

// ---------------------------------------------------------------------------------------------
// Owner files (link mode)

/** This process's owner file in one locks directory: the inode its locks link to. */
interface OwnerFile {
  readonly file: string;
  readonly owner: LockOwner;
  readonly dev: number;
  readonly ino: number;
  /** Held locks, waits and open stores using it; the file is removed when none is left. */
  refs: number;
}

const ownerFiles = new Map<string, OwnerFile>();

/**
 * The owner file of `dir`, written now if there is none. It is complete before any lock links to
 * it, so a lock is never seen without its owner.
 */
function ownerFile(dir: string): OwnerFile {
  const known = ownerFiles.get(dir);
  if (known !== undefined) return known;
  const owner = newOwner();
  const file = path.join(dir, `${OWNER_PREFIX}${owner.pid}-${owner.nonce}`);
  fs.writeFileSync(file, ownerText(owner), { flag: 'wx', mode: 0o644 });
  const stat = fs.statSync(file);
  const created: OwnerFile = { file, owner, dev: stat.dev, ino: stat.ino, refs: 0 };
  ownerFiles.set(dir, created);
  sweepOwnerFiles(dir);
  return created;
}

/** Removes owner files of processes that are gone (a killed process cannot remove its own); run when one is written. */
function sweepOwnerFiles(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(OWNER_PREFIX)) continue;
    const file = path.join(dir, name);
    const found = readOwner(file);
    // Locks that still link to it keep their content: only the name goes.
    if (found.kind === 'owner' && found.owner.host === HOST && isStale(found, Number.POSITIVE_INFINITY))
      unlinkIfPresent(fs, file);
  }
}

function retain(dir: string): OwnerFile {
  const owner = ownerFile(dir);
  owner.refs += 1;
  return owner;
}

function releaseOwnerFile(owner: OwnerFile): void {
  owner.refs -= 1;
  if (owner.refs > 0) return;
  const dir = path.dirname(owner.file);
  if (ownerFiles.get(dir) === owner) ownerFiles.delete(dir);
  unlinkIfPresent(fs, owner.file);
}

/** The owner file each link-mode lock was made from, released with the lock. */
const linkedTo = new WeakMap<HeldLock, OwnerFile>();

/**
 * Keeps this process's owner file in `dir` while a store uses it (it is written on first use), so
 * that taking a lock never has to create a file. Returns the function that gives it up, or
 * `undefined` where locks are not links.
 */
export function retainLockOwner(dir: string): (() => void) | undefined {
  if (detectedMode !== 'link') return undefined;
  let owner: OwnerFile;
  try {
    owner = retain(dir);
  } catch (error) {
    // A directory that refuses the file is met again, and reported, when a lock is taken.
    if (errorCode(error) === undefined) throw error;
    return undefined;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    releaseOwnerFile(owner);
  };
}

// ---------------------------------------------------------------------------------------------
// Creating and reading locks

function unsupported(code: string | undefined): boolean {
  return code === 'EPERM' || code === 'EACCES' || code === 'ENOSYS' || code === 'ENOTSUP' || code === 'EOPNOTSUPP';
}

const MODES: readonly LockMode[] = ['link', 'symlink', 'file'];

/** Creates the entry `file` for `owner` in `mode` (link mode: a link to this process's owner file). */
function create(file: string, owner: LockOwner, mode: Exclude<LockMode, 'link'>): void {
  const text = ownerText(owner);
  if (mode === 'symlink') fs.symlinkSync(text, file);
  else fs.writeFileSync(file, text, { flag: 'wx' });
}

/** Links `file` to the owner file of its directory (retained for the lock); `undefined` when it exists. */
function createLink(file: string): HeldLock | undefined {
  const dir = path.dirname(file);
  for (let attempt = 0; ; attempt += 1) {
    const owner = retain(dir);
    try {
      fs.linkSync(owner.file, file);
      const held: HeldLock = {
        path: file,
        owner: owner.owner,
        mode: 'link',
        inode: { dev: owner.dev, ino: owner.ino },
      };
      linkedTo.set(held, owner);
      return held;
    } catch (error) {
      releaseOwnerFile(owner);
      // Our owner file (or the whole locks directory) was removed under us: make them again, once.
      if (isMissing(error) && attempt === 0 && !fs.existsSync(owner.file)) {
        if (ownerFiles.get(dir) === owner) ownerFiles.delete(dir);
        fs.mkdirSync(dir, { recursive: true });
        continue;
      }
      throw error;
    }
  }
}

function createIn(file: string, mode: LockMode): HeldLock | undefined {
  try {
    if (mode === 'link') return createLink(file);
    const owner = newOwner();
    create(file, owner, mode);
    return { path: file, owner, mode };
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return undefined;
    throw error;
  }
}

/** Creates the lock `file`; `undefined` when it exists. */
function tryCreate(file: string): HeldLock | undefined {
  if (detectedMode !== undefined) return createIn(file, detectedMode);
  // The first lock finds what this file system allows: a kind it refuses (Windows without the
  // privilege, file systems without hard links) moves on to the next; the kind that worked is kept.
  let first: unknown;
  for (const mode of MODES) {
    try {
      const held = createIn(file, mode);
      detectedMode = mode;
      return held;
    } catch (error) {
      first ??= error;
      if (!unsupported(errorCode(error))) break;
    }
  }
  // Refused every way (a directory we may not write): reported as the first refusal, nothing remembered.
  throw first;
}

type Found =
  { kind: 'missing' } | { kind: 'owner'; owner: LockOwner; ageMs: number } | { kind: 'unwritten'; ageMs: number };

/** Reads the owner of the lock at `file`: `missing`, an owner, or `unwritten` with the lock's age. */
function readOwner(file: string): Found {
  try {
    const stat = fs.lstatSync(file);
    // A link-mode lock shares its inode with the owner file: its status changes each time the
    // owner takes or releases a lock, which is the owner's last sign of life.
    const ageMs = Date.now() - (stat.isFile() && stat.nlink > 1 ? stat.ctimeMs : stat.mtimeMs);
    const text = stat.isSymbolicLink() ? fs.readlinkSync(file) : fs.readFileSync(file, 'utf8');
    const owner = parseOwner(text);
    return owner === undefined ? { kind: 'unwritten', ageMs } : { kind: 'owner', owner, ageMs };
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    throw error;
  }
}

/** True when no process `pid` runs on this machine (a zombie counts as gone). */
export function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return errorCode(error) === 'ESRCH';
  }
  try {
    // A killed child that its parent has not reaped yet still answers signal 0: it is dead all the same.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /\) Z /.test(stat);
  } catch {
    return false;
  }
}

function isStale(found: Found, foreignStaleMs: number): boolean {
  switch (found.kind) {
    case 'missing':
      return false;
    case 'unwritten':
      return found.ageMs > UNWRITTEN_STALE_MS;
    case 'owner': {
      const { owner } = found;
      if (owner.host !== HOST) return found.ageMs > foreignStaleMs;
      if (owner.boot !== BOOT) return true;
      if (owner.pid === process.pid) return false;
      return processIsGone(owner.pid);
    }
    default:
      return found satisfies never;
  }
}

function sameLock(a: Found, b: Found): boolean {
  if (a.kind === 'owner' && b.kind === 'owner') return a.owner.nonce === b.owner.nonce && a.owner.pid === b.owner.pid;
  return a.kind === 'unwritten' && b.kind === 'unwritten';
}

/**
 * Removes the stale lock `seen` from `file`, and only that one: another process may have broken
 * it and taken the lock since we looked, and that lock must survive.
 */
function breakStale(file: string, seen: Found): void {
  const aside = `${file}.stale-${randomBytes(6).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const moved = readOwner(aside);
  if (sameLock(moved, seen)) {
    unlinkIfPresent(fs, aside);
    return;
  }
  // We moved a live lock taken after our look: put it back exactly as it was (the same entry,
  // linked again), unless a third process has taken the lock in the meantime (then the owner we
  // displaced finds its lock gone on release and reports it).
  try {
    if (fs.lstatSync(aside).isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(aside), file);
    else fs.linkSync(aside, file);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
  unlinkIfPresent(fs, aside);
}

/** One attempt: the lock, or `undefined` when a live owner holds it. */
export function tryLock(file: string, options: Pick<LockOptions, 'foreignStaleMs'>): HeldLock | undefined {
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt += 1) {
    const held = tryCreate(file);
    if (held !== undefined) return held;
    const found = readOwner(file);
    if (found.kind === 'missing') continue;
    if (!isStale(found, options.foreignStaleMs)) return undefined;
    breakStale(file, found);
  }
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The marker a process waiting for `file` leaves, so that a holder keeping it across operations lets go. */
function waitMarker(file: string): string {
  return `${file}-waiting`;
}

/** True when a live process waits for the lock `file` (a marker of a dead waiter is removed). */
export function hasWaiters(file: string, options: Pick<LockOptions, 'foreignStaleMs'>): boolean {
  const marker = waitMarker(file);
  const found = readOwner(marker);
  if (found.kind === 'missing') return false;
  if (!isStale(found, options.foreignStaleMs)) return true;
  breakStale(marker, found);
  return false;
}

/** Takes the lock, waiting (with backoff) while a live owner holds it; throws `UNAVAILABLE` after the timeout. */
export async function lock(file: string, options: LockOptions): Promise<HeldLock> {
  const held = tryLock(file, options);
  if (held !== undefined) return held;
  // Say that we wait, so that a holder keeping the lock across operations gives it up.
  const marker = waitMarker(file);
  let mine: HeldLock | undefined;
  try {
    return await waitFor(file, options, () => {
      if (mine !== undefined) {
        if (fs.lstatSync(marker, { throwIfNoEntry: false }) !== undefined) return;
        unlock(mine);
        mine = undefined;
      }
      // The marker is made like a lock; another waiter's marker says the same as ours.
      mine = tryCreate(marker);
    });
  } finally {
    if (mine !== undefined) unlock(mine);
  }
}

async function waitFor(file: string, options: LockOptions, announce: () => void): Promise<HeldLock> {
  const started = Date.now();
  for (let round = 0; ; round += 1) {
    announce();
    const held = tryLock(file, options);
    if (held !== undefined) return held;
    if (Date.now() - started > options.timeoutMs) {
      const found = readOwner(file);
      const by = found.kind === 'owner' ? ` (held by pid ${found.owner.pid} on ${found.owner.host})` : '';
      throw new UnavailableError(
        `${options.store}: ${file} stayed locked by another writer${by} past the lock timeout (${options.timeoutMs} ms)`,
        {
          store: options.store,
          reason: 'LOCKED',
          outcome: 'not-applied',
          lock: file,
        },
      );
    }
    // Locks are held for a few commits at most (see `LEASE_MS`): poll often — a failed attempt is
    // one lookup — and add jitter so waiters do not march in step.
    await sleep(Math.min(LOCK_POLL_MAX_MS, LOCK_POLL_FIRST_MS * 2 ** Math.min(round, 30)) * (0.5 + Math.random()));
  }
}

/** Releases a lock we hold; a lock that is no longer ours (broken by mistake) is left alone. */
export function unlock(held: HeldLock): void {
  try {
    if (held.mode === 'link') {
      // Ours if it is still a link to our owner file: one status call, no read.
      const stat = fs.lstatSync(held.path, { throwIfNoEntry: false });
      if (stat !== undefined && stat.ino === held.inode?.ino && stat.dev === held.inode.dev)
        unlinkIfPresent(fs, held.path);
      return;
    }
    const found = readOwner(held.path);
    if (found.kind === 'owner' && found.owner.nonce === held.owner.nonce) unlinkIfPresent(fs, held.path);
  } finally {
    const owner = linkedTo.get(held);
    if (owner !== undefined) {
      linkedTo.delete(held);
      releaseOwnerFile(owner);
    }
  }
}

/** Forces the lock mode (tests of the fallbacks for systems without hard or symbolic links). */
export function setLockModeForTesting(mode: LockMode | undefined): void {
  detectedMode = mode;
}
