/**
 * Penguin's session index, as a cache that cannot lie: one entry per session (its head, and the
 * identity of the files it was read from). `list` checks each entry against the directory — the
 * set of session directories, then the snapshot's identity and the current journal's size, two
 * `stat` calls per session — and re-reads only the heads of sessions that changed (a snapshot
 * header and a short journal, never the messages). A missing, damaged or stale index file is
 * simply rebuilt; appends never touch it.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { ChatstateError } from '../../errors.js';
import type { HeadRecord } from '../../store/driver-types.js';
import { FrameError, frameLine, parseLine } from './frame.js';
import { errorCode, isMissing, stampOf, statOrUndefined, unlinkIfPresent } from './fs-util.js';
import { decodeName, type SessionPaths, type StorePaths } from './paths.js';
import { readHeadOnly } from './session-read.js';
import { INDEX_YIELD_EVERY } from './tuning.js';

/** One session in the index. */
interface IndexEntry {
  readonly head: HeadRecord;
  /** Identity of the snapshot the head was read from (`-` for the backup). */
  readonly snap: string;
  /** The journal the head was read up to, and how far. */
  readonly gen: number;
  readonly offset: number;
}

function isEntry(value: unknown): value is IndexEntry & { name: string } {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  const head = entry.head as Record<string, unknown> | null;
  return (
    typeof entry.name === 'string' &&
    typeof entry.snap === 'string' &&
    typeof entry.gen === 'number' &&
    typeof entry.offset === 'number' &&
    typeof head === 'object' &&
    head !== null &&
    typeof head.id === 'string' &&
    typeof head.updatedAt === 'string' &&
    typeof head.version === 'number'
  );
}

function fresh(p: SessionPaths, entry: IndexEntry): boolean {
  const { fs } = p;
  const snapshot = statOrUndefined(fs, p.snapshot);
  if ((snapshot === undefined ? '-' : stampOf(snapshot)) !== entry.snap) return false;
  return statOrUndefined(fs, p.journal(entry.gen))?.size === entry.offset;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The index of one store directory. */
export class SessionIndex {
  private readonly entries = new Map<string, IndexEntry>();
  /** The paths of each listed session by directory name: made once (each resolves and checks paths), not on every list. */
  private readonly pathsOf = new Map<string, SessionPaths>();
  private fileStamp: string | undefined;
  private running: Promise<HeadRecord[]> | undefined;

  constructor(private readonly paths: StorePaths) {}

  /** Every session's head, verified against the directory. Concurrent calls share one pass. */
  heads(): Promise<HeadRecord[]> {
    this.running ??= this.verify().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** The owner of session `id` as last indexed, unverified (`undefined` when not indexed or ownerless). */
  lastOwner(id: string): { userId?: string; agentId?: string } | undefined {
    this.loadFile();
    for (const { head } of this.entries.values()) {
      if (head.id !== id) continue;
      if (head.userId === undefined && head.agentId === undefined) return undefined;
      return {
        ...(head.userId === undefined ? {} : { userId: head.userId }),
        ...(head.agentId === undefined ? {} : { agentId: head.agentId }),
      };
    }
    return undefined;
  }

  private loadFile(): void {
    const { fs } = this.paths;
    const stat = statOrUndefined(fs, this.paths.index);
    if (stat === undefined || stampOf(stat) === this.fileStamp) return;
    this.fileStamp = stampOf(stat);
    try {
      const text = fs.readFileSync(this.paths.index);
      const fields = parseLine(text, 0, text.length - 1);
      if (fields.k !== 'index' || !Array.isArray(fields.entries)) return;
      for (const value of fields.entries as unknown[]) {
        if (!isEntry(value)) continue;
        const { name, ...entry } = value;
        // Entries are verified against the files before use, so any source will do.
        if (!this.entries.has(name)) this.entries.set(name, entry);
      }
    } catch (error) {
      // A damaged or half-written index is only a slower list: it is rebuilt from the sessions.
      if (!(error instanceof FrameError) && !isMissing(error)) throw error;
    }
  }

  private writeFile(): void {
    const { fs } = this.paths;
    const entries = [...this.entries].map(([name, entry]) => ({ name, ...entry }));
    const temporary = `${this.paths.index}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      // No fsync: the index is derived data, checked against the sessions on every list.
      fs.writeFileSync(temporary, frameLine({ k: 'index', s: 1, entries }), { flag: 'wx' });
      fs.renameSync(temporary, this.paths.index);
      const stat = statOrUndefined(fs, this.paths.index);
      this.fileStamp = stat === undefined ? undefined : stampOf(stat);
    } catch (error) {
      unlinkIfPresent(fs, temporary);
      // A read-only or full disk must not fail a list: the index is only a cache.
      if (errorCode(error) === undefined) throw error;
    }
  }

  private async verify(): Promise<HeadRecord[]> {
    const { fs } = this.paths;
    this.loadFile();
    let names: string[];
    try {
      names = fs.readdirSync(this.paths.sessions);
    } catch (error) {
      if (!isMissing(error)) throw error;
      names = [];
    }
    let changed = false;
    const present = new Set<string>();
    let checked = 0;
    for (const name of names) {
      let p = this.pathsOf.get(name);
      if (p === undefined) {
        const id = decodeName(name);
        if (id === undefined) continue;
        p = this.paths.session(id);
        this.pathsOf.set(name, p);
      }
      present.add(name);
      const entry = this.entries.get(name);
      if (entry !== undefined && fresh(p, entry)) continue;
      let read: ReturnType<typeof readHeadOnly>;
      try {
        read = readHeadOnly(p);
      } catch (error) {
        // A session written by a newer version cannot be listed by this one; the rest can.
        if (ChatstateError.hasCode(error, 'CORRUPT')) read = undefined;
        else throw error;
      }
      changed = true;
      if (read === undefined) this.entries.delete(name);
      else this.entries.set(name, read);
      // Rebuilding a large index reads many files: let other work run in between.
      checked += 1;
      if (checked % INDEX_YIELD_EVERY === 0) await yieldToLoop();
    }
    for (const name of this.pathsOf.keys()) if (!present.has(name)) this.pathsOf.delete(name);
    for (const name of this.entries.keys()) {
      if (!present.has(name)) {
        this.entries.delete(name);
        changed = true;
      }
    }
    if (changed) this.writeFile();
    return [...this.entries.values()].map((entry) => entry.head);
  }
}
