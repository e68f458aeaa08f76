/**
 * A session's directory: what it holds, new journals, damaged files kept aside in lost+found
 * (moved or copied, never deleted), the marker of a session that could not be read, and the
 * collection of files no copy needs any more.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import path from 'node:path';
import type { RecoveryNote } from '../../store/driver-types.js';
import { FrameError, frameLine, journalRecord, newerFormatError, parseLine, type BeginCause } from './frame.js';
import type { FileSystem } from './file-system.js';
import {
  ensureDirectory,
  fdatasync,
  fsync,
  fsyncDirectory,
  isMissing,
  unlinkIfPresent,
  writeFully,
} from './fs-util.js';
import { beginLine } from './journal.js';
import { journalGen, type SessionPaths, type StorePaths } from './paths.js';
import { readWatermark } from './watermark.js';

/** The store-wide things a session's files need. */
export interface FilesContext {
  readonly store: string;
  readonly paths: StorePaths;
  /** The owner of session `id` as last known (from the session index), for a recovery marker. */
  readonly lastOwner?: (id: string) => RecoveryNote['owner'];
}

/** Files of a session directory, by kind. */
export interface Inventory {
  readonly exists: boolean;
  readonly names: string[];
  readonly journals: number[];
  readonly hasData: boolean;
  readonly marker: boolean;
}

/** Lists the files of a session directory. */
export function inventory(p: SessionPaths): Inventory {
  const { fs } = p;
  let names: string[];
  try {
    names = fs.readdirSync(p.dir);
  } catch (error) {
    if (isMissing(error)) return { exists: false, names: [], journals: [], hasData: false, marker: false };
    throw error;
  }
  const journals = names.map(journalGen).filter((gen): gen is number => gen !== undefined);
  const hasData = journals.length > 0 || names.includes('snapshot') || names.includes('snapshot.bak');
  return { exists: true, names, journals, hasData, marker: names.includes('recovered') };
}

/** The owner a marker names (markers written before owners were kept name none). */
function ownerOf(value: unknown): RecoveryNote['owner'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { userId, agentId } = value as Record<string, unknown>;
  const owner = {
    ...(typeof userId === 'string' ? { userId } : {}),
    ...(typeof agentId === 'string' ? { agentId } : {}),
  };
  return Object.keys(owner).length === 0 ? undefined : owner;
}

/** The recovery note a marker holds. */
export function readMarker(p: SessionPaths): RecoveryNote {
  const { fs } = p;
  try {
    const text = fs.readFileSync(p.marker);
    const end = text.indexOf(0x0a);
    const fields = parseLine(text, 0, end < 0 ? text.length : end);
    if (typeof fields.reason === 'string' && Array.isArray(fields.keptAside)) {
      const owner = ownerOf(fields.owner);
      return {
        reason: fields.reason,
        lostId: p.id,
        keptAside: fields.keptAside.filter((item): item is string => typeof item === 'string'),
        ...(owner === undefined ? {} : { owner }),
      };
    }
  } catch (error) {
    if (!(error instanceof FrameError) && !isMissing(error)) throw error;
  }
  return { reason: 'the session could not be read', lostId: p.id, keptAside: [] };
}

/** A new directory under lost+found for the damaged files of `p`. */
async function asideDirectory(context: FilesContext, p: SessionPaths): Promise<string> {
  const { fs } = p;
  if (ensureDirectory(fs, context.paths.lostAndFound)) await fsyncDirectory(fs, context.paths.root);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = path.join(context.paths.lostAndFound, `${p.name}.${stamp}.${randomBytes(3).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Moves (or copies) damaged files aside; returns their new paths relative to the store. */
export async function keepAside(
  context: FilesContext,
  p: SessionPaths,
  files: readonly string[],
  copy = false,
): Promise<string[]> {
  const { fs } = p;
  if (files.length === 0) return [];
  const dir = await asideDirectory(context, p);
  const kept: string[] = [];
  for (const file of files) {
    const target = path.join(dir, path.basename(file));
    try {
      if (copy) fs.copyFileSync(file, target);
      else fs.renameSync(file, target);
    } catch (error) {
      if (isMissing(error)) continue;
      throw error;
    }
    kept.push(path.relative(context.paths.root, target).split(path.sep).join('/'));
  }
  await fsyncDirectory(fs, dir);
  await fsyncDirectory(fs, context.paths.lostAndFound);
  if (!copy) await fsyncDirectory(fs, p.dir);
  return kept;
}

/** Nothing of the session is readable: keep every file aside and leave a marker saying so. */
export async function recoverLost(
  context: FilesContext,
  p: SessionPaths,
  reason: string,
  found: Inventory,
): Promise<RecoveryNote> {
  const { fs } = p;
  // The mark stays: the session that takes this one's place continues above it.
  const files = found.names
    .filter((name) => name !== 'recovered' && name !== path.basename(p.watermark))
    .map((name) => path.join(p.dir, name));
  const keptAside = await keepAside(context, p, files);
  // The head is unreadable, but the index may still know whose session this was.
  const owner = context.lastOwner?.(p.id);
  const note: RecoveryNote = { reason, lostId: p.id, keptAside, ...(owner === undefined ? {} : { owner }) };
  const tmp = `${p.marker}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = fs.openSync(tmp, 'wx');
  try {
    writeFully(
      fs,
      fd,
      frameLine({ k: 'recovered', s: 1, reason, keptAside, ...(owner === undefined ? {} : { owner }) }),
    );
    await fsync(fs, fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, p.marker);
  await fsyncDirectory(fs, p.dir);
  return note;
}

/** Creates journal `gen` with its begin line, durably; returns it open. */
export async function createJournal(
  p: SessionPaths,
  gen: number,
  version: number,
  lineage: string,
  cause: BeginCause,
): Promise<{ fd: number; bytes: number }> {
  const { fs } = p;
  const fd = fs.openSync(
    p.journal(gen),
    constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL,
    0o644,
  );
  try {
    const line = beginLine(gen, version, lineage, cause);
    writeFully(fs, fd, line);
    await fdatasync(fs, fd);
    return { fd, bytes: line.length };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** Deletes journals older than the backup needs, and temporary files of writers that died. */
export function collectGarbage(p: SessionPaths, keepFrom: number | undefined, isGone: (pid: number) => boolean): void {
  const { fs } = p;
  for (const name of inventory(p).names) {
    const gen = journalGen(name);
    if (gen !== undefined && keepFrom !== undefined && gen < keepFrom) unlinkIfPresent(fs, path.join(p.dir, name));
    const temporary = /^(?:snapshot|recovered)\.tmp-([0-9]+)-/.exec(name);
    if (temporary !== null && Number(temporary[1]) !== process.pid && isGone(Number(temporary[1])))
      unlinkIfPresent(fs, path.join(p.dir, name));
  }
}

/**
 * True when the session's directory holds no snapshot nor backup, no high-water mark, and its
 * journals hold nothing but the begin line of a creation — whole, cut short (no newline yet: a
 * first write torn by a crash), or nothing at all: a first save cut short by a crash. It
 * acknowledged nothing, so the session does not exist yet — nothing was lost, nothing is
 * damaged. A mark is written only once a creation is durable: with one, this is damage.
 */
export function abandonedCreation(p: SessionPaths, found: Inventory): boolean {
  const { fs } = p;
  if (found.names.includes('snapshot') || found.names.includes('snapshot.bak')) return false;
  if (readWatermark(p) !== undefined) return false;
  return found.journals.every((gen) => {
    let text: Buffer;
    try {
      text = fs.readFileSync(p.journal(gen));
    } catch (error) {
      if (isMissing(error)) return true;
      throw error;
    }
    const newline = text.indexOf(0x0a);
    // No line ended yet: the journal's first write was cut (its flush never returned).
    if (newline < 0) return true;
    if (newline !== text.length - 1) return false;
    try {
      const record = journalRecord(parseLine(text, 0, text.length - 1));
      return record.k === 'begin' && record.cause === 'create';
    } catch (error) {
      if (error instanceof FrameError && error.newer)
        throw newerFormatError(`journal ${gen} of ${p.id}`, error.message);
      if (error instanceof FrameError) return false;
      throw error;
    }
  });
}

/** True when the journal `file` holds nothing but its begin line (a fold or replace that never finished). */
export function onlyBegins(fs: FileSystem, file: string): boolean {
  try {
    const text = fs.readFileSync(file);
    return text.indexOf(0x0a) === text.length - 1;
  } catch (error) {
    if (isMissing(error)) return true;
    throw error;
  }
}
