/**
 * Inter-process locks for the file store, with nothing but `node:fs`.
 *
 * A lock is a symbolic link whose target names its owner (pid, host, boot id, a random nonce):
 * creating a link is atomic and fails when one exists, and the owner is written in the same
 * step, so no process ever sees a lock without an owner. Where links are not allowed (Windows
 * without developer mode), an exclusively created file holding the same text is used.
 *
 * A lock whose owner died (same host and boot, no such process) is stale and is broken: the
 * breaker renames it to a private name, checks that what it moved is the stale lock it saw, and
 * otherwise puts it back. Locks of another host are trusted for `foreignStaleMs`.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { CollaboratorError } from '../../errors.js';
import { errorCode, isMissing, unlinkIfPresent } from './fs-util.js';

/** Who holds a lock: its process, a digest of its host name and of its boot id, and a nonce per lock. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly boot: string;
  readonly nonce: string;
}

/** How locks are made. */
export type LockMode = 'symlink' | 'file';

/** Options of the lock functions. */
export interface LockOptions {
  /** Give up after this many milliseconds. */
  readonly timeoutMs: number;
  /** Locks of another host are stale after this many milliseconds. */
  readonly foreignStaleMs: number;
  /** Store name, for error messages. */
  readonly store: string;
}

// Short digests: the whole owner fits in 59 bytes, so on ext4 (and most file systems) the link
// is stored inside its inode — a lock then costs no block allocation, which is most of its price.
const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
const BOOT = createHash('sha256').update(readBootId()).digest('hex').slice(0, 8);
const OWNER_PATTERN = /^cs1 ([0-9]{1,10}) ([0-9a-f]{8}) ([0-9a-f]{8}) ([0-9a-f]{12})$/;
/** A file-mode lock without readable owner is stale after this long: its creator had microseconds to write it. */
const UNWRITTEN_STALE_MS = 2000;

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

function create(file: string, text: string, mode: LockMode): void {
  if (mode === 'symlink') fs.symlinkSync(text, file);
  else fs.writeFileSync(file, text, { flag: 'wx' });
}

function tryCreate(file: string, owner: LockOwner): LockMode | undefined {
  const text = ownerText(owner);
  const mode = detectedMode ?? 'symlink';
  try {
    create(file, text, mode);
    return mode;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return undefined;
    if (mode === 'symlink' && detectedMode === undefined && (code === 'EPERM' || code === 'EACCES' || code === 'ENOSYS' || code === 'ENOTSUP' || code === 'EOPNOTSUPP')) {
      // This file system (or Windows without the privilege) refuses links: use exclusive files.
      detectedMode = 'file';
      return tryCreate(file, owner);
    }
    throw error;
  }
}

/** Reads the owner of the lock at `file`: `missing`, an owner, or `unwritten` with the lock's age. */
function readOwner(file: string): { kind: 'missing' } | { kind: 'owner'; owner: LockOwner; ageMs: number } | { kind: 'unwritten'; ageMs: number } {
  try {
    const stat = fs.lstatSync(file);
    const ageMs = Date.now() - stat.mtimeMs;
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

function isStale(found: ReturnType<typeof readOwner>, foreignStaleMs: number): boolean {
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

function sameLock(a: ReturnType<typeof readOwner>, b: ReturnType<typeof readOwner>): boolean {
  if (a.kind === 'owner' && b.kind === 'owner') return a.owner.nonce === b.owner.nonce;
  return a.kind === 'unwritten' && b.kind === 'unwritten';
}

/**
 * Removes the stale lock `seen` from `file`, and only that one: another process may have broken
 * it and taken the lock since we looked, and that lock must survive.
 */
function breakStale(file: string, seen: ReturnType<typeof readOwner>): void {
  const aside = `${file}.stale-${randomBytes(6).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const moved = readOwner(aside);
  if (sameLock(moved, seen)) {
    unlinkIfPresent(aside);
    return;
  }
  // We moved a live lock taken after our look: put it back exactly as it was, unless a third
  // process has taken the lock in the meantime (then the owner we displaced finds its lock gone
  // on release and reports it).
  try {
    if (moved.kind === 'owner') create(file, ownerText(moved.owner), fs.lstatSync(aside).isSymbolicLink() ? 'symlink' : 'file');
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
  unlinkIfPresent(aside);
}

function newOwner(): LockOwner {
  return { pid: process.pid, host: HOST, boot: BOOT, nonce: randomBytes(6).toString('hex') };
}

/** One attempt: the lock, or `undefined` when a live owner holds it. */
export function tryLock(file: string, options: Pick<LockOptions, 'foreignStaleMs'>): HeldLock | undefined {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const owner = newOwner();
    const mode = tryCreate(file, owner);
    if (mode !== undefined) return { path: file, owner, mode };
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
  const waiting = newOwner();
  const marker = waitMarker(file);
  try {
    return await waitFor(file, options, () => {
      try {
        create(marker, ownerText(waiting), detectedMode ?? 'symlink');
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    });
  } finally {
    const found = readOwner(marker);
    if (found.kind === 'owner' && found.owner.nonce === waiting.nonce) unlinkIfPresent(marker);
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
      throw new CollaboratorError('UNAVAILABLE', `${options.store}: ${file} stayed locked by another writer${by} past the lock timeout (${options.timeoutMs} ms)`, {
        details: { reason: 'LOCKED', lock: file },
      });
    }
    // Locks are held for a few commits at most (see the driver's lease): poll often — a failed
    // attempt is one lookup — and add jitter so waiters do not march in step.
    await sleep(Math.min(4, 2 ** Math.min(round, 3) / 2) * (0.5 + Math.random()));
  }
}

/** Releases a lock we hold; a lock that is no longer ours (broken by mistake) is left alone. */
export function unlock(held: HeldLock): void {
  const found = readOwner(held.path);
  if (found.kind === 'owner' && found.owner.nonce === held.owner.nonce) unlinkIfPresent(held.path);
}

/** Forces the lock mode (tests of the fallback for systems without symbolic links). */
export function setLockModeForTesting(mode: LockMode | undefined): void {
  detectedMode = mode;
}
