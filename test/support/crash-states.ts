/**
 * Crash states of a recorded trace (see `crash-fs.ts`), as ALICE and CrashMonkey build them.
 *
 * The persistence model. A crash after operation k leaves, on top of the initial image:
 * 1. every operation ≤ k that a barrier ≤ k made durable:
 *    - a write or truncate of an inode, by a later fsync/fdatasync of that inode (one called after
 *      the operation was recorded: the barrier's `upTo`);
 *    - a create, mkdir, unlink (also each step of a recursive rm) of an entry, by a later fsync of
 *      the directory holding it; a rename by later fsyncs of both its directories (one, when they
 *      are the same) — nothing else makes namespace changes durable (not a file's fsync, not the
 *      order of the calls);
 * 2. plus some prefix, in trace order, of the operations ≤ k that are not durable yet: every
 *    prefix length is tried;
 * 3. where the last write of that prefix that is not durable may be torn — only its first 1,
 *    half, or all but one of its bytes reached the disk — and (`earlierCuts`) where one earlier
 *    un-flushed write is torn at half while everything after it reached the disk.
 *
 * Operations are applied in trace order to an inode model: a write lands at its offset in its
 * inode whatever the inode's name (or absent name: then nothing can reach it), a gap left by a
 * write that did not reach the disk reads as zeros, a rename moves an entry, an unlink removes
 * one. Identical images are found by hashing the tree, and verified once, against every set of
 * acknowledgements (`contexts`) under which they can be found.
 * @module
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  describeOp,
  isMutating,
  namespaceDirs,
  type Inode,
  type MutatingOp,
  type Trace,
  type TraceOp,
  type Tree,
} from './crash-fs.js';

/** One crash state: the crash point, the length of the prefix of not-yet-durable operations that reached the disk, and a torn write. */
export interface StateSpec {
  /** The index of the last operation before the crash (-1: before any). */
  readonly crashPoint: number;
  /** Operations with an index below this reached the disk (and the durable ones after it). */
  readonly prefix: number;
  readonly tear?: { readonly op: number; readonly cut: number };
}

/** A distinct image of the directory. */
export interface DistinctState {
  readonly hash: string;
  /** The first state found with this image (to rebuild it). */
  readonly spec: StateSpec;
  /**
   * The events recorded before the crash, by count, under which this image can be found (each
   * with the first state that shows it): the image must satisfy every one of them.
   */
  readonly contexts: Map<number, StateSpec>;
  /** Whether some state with this image tears a write before the last one of its prefix. */
  earlierTear: boolean;
  /** Whether the image is found without any earlier tear (a "pure" crash state of the prefix model). */
  pure: boolean;
  /** Whether the image is found without any torn write. */
  untorn: boolean;
}

/** What `crashStates` found. */
export interface CrashStates {
  /** Operations in the trace (events included), and those that change the disk. */
  readonly operations: number;
  readonly mutating: number;
  /** Crash points: after each operation, and before the first. */
  readonly crashPoints: number;
  /** Crash states enumerated (crash point × prefix × tear). */
  readonly generated: number;
  /** Of which distinct sets of applied operations (and tears): the trees built and hashed. */
  readonly built: number;
  readonly distinct: DistinctState[];
}

/** A write that may be torn, where it may be. */
export interface TearSite {
  /** The write's index in the trace, and its length. */
  readonly index: number;
  readonly length: number;
  /** The crash point. */
  readonly crashPoint: number;
  /** Whether some barrier of the trace ever makes the write durable (the store's never-flushed files are not). */
  readonly everDurable: boolean;
  /** The index of the next write to the same inode (`Infinity`: none). */
  readonly nextWrite: number;
}

/** Options of `crashStates`. */
export interface CrashStateOptions {
  /** Where a torn write may be cut. @default 1, half, length − 1 */
  readonly cuts?: (site: TearSite) => number[];
  /**
   * Where each earlier un-flushed write may be torn (one at a time) in the full prefix of every
   * crash point, everything after it reaching the disk; `false`: never. @default half
   */
  readonly earlierCuts?: ((site: TearSite) => number[]) | false;
}

/** 1 byte, half, and all but one byte: a write that barely started, one cut in the middle, and one that lacks only its end. */
export function threeCuts(length: number): number[] {
  return [...new Set([1, Math.floor(length / 2), length - 1])].filter((cut) => cut > 0 && cut < length);
}

function defaultCuts(site: TearSite): number[] {
  return threeCuts(site.length);
}

/**
 * For each operation, the index of the barrier that makes it durable (`Infinity`: none does, or
 * it is not a mutating operation).
 */
export function durability<E>(ops: ReadonlyArray<TraceOp<E>>): number[] {
  const durableAt = ops.map(() => Number.POSITIVE_INFINITY);
  // Per inode (data) and per directory (namespace): the operations waiting for a barrier, in order.
  const data = new Map<Inode, number[]>();
  const names = new Map<Inode, number[]>();
  // The first barrier of each directory a namespace operation needs, per operation.
  const dirCovers = new Map<number, Map<Inode, number>>();
  const queue = (map: Map<Inode, number[]>, key: Inode, index: number): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [index]);
    else list.push(index);
  };
  ops.forEach((op, index) => {
    if (isMutating(op)) {
      const dirs = namespaceDirs(op);
      if (dirs === undefined) queue(data, (op as { inode: Inode }).inode, index);
      else {
        for (const dir of dirs) queue(names, dir, index);
        dirCovers.set(index, new Map());
      }
      return;
    }
    if (op.kind !== 'fsync' && op.kind !== 'dirsync') return;
    const list = (op.kind === 'fsync' ? data : names).get(op.inode);
    if (list === undefined) return;
    // A barrier covers the operations recorded before it was called; later barriers cover the rest.
    let covered = 0;
    while (covered < list.length && (list[covered] as number) < op.upTo) covered += 1;
    for (const target of list.splice(0, covered)) {
      if (op.kind === 'fsync') {
        durableAt[target] = index;
        continue;
      }
      const covers = dirCovers.get(target) as Map<Inode, number>;
      covers.set(op.inode, index);
      const needed = namespaceDirs(ops[target] as MutatingOp) as readonly Inode[];
      if (needed.every((dir) => covers.has(dir)))
        durableAt[target] = Math.max(...needed.map((dir) => covers.get(dir) as number));
    }
  });
  return durableAt;
}

/** Builds the image of a crash state. */
export function buildState<E>(
  trace: Trace<E>,
  spec: StateSpec,
  durableAt: readonly number[] = durability(trace.ops),
): Tree {
  const tree = trace.initial.clone();
  for (let index = 0; index <= spec.crashPoint; index += 1) {
    const op = trace.ops[index] as TraceOp<E>;
    if (!isMutating(op)) continue;
    if (index >= spec.prefix && (durableAt[index] as number) > spec.crashPoint) continue;
    tree.apply(op, spec.tear?.op === index ? spec.tear.cut : undefined);
  }
  return tree;
}

/** A hash of a tree's reachable content (names, kinds, bytes). */
export function hashTree(tree: Tree): string {
  const hash = createHash('sha1');
  for (const entry of tree.walk()) {
    if (entry.kind === 'dir') hash.update(`d ${entry.path}\n`);
    else {
      hash.update(`f ${entry.path} ${entry.data.length}\n`);
      hash.update(entry.data);
    }
  }
  return hash.digest('hex');
}

/** Writes a tree into `directory` (created; it must not hold anything yet). */
export function materialize(tree: Tree, directory: string): void {
  fs.mkdirSync(directory, { recursive: true });
  for (const entry of tree.walk()) {
    const target = path.join(directory, ...entry.path.split('/'));
    if (entry.kind === 'dir') fs.mkdirSync(target);
    else fs.writeFileSync(target, entry.data);
  }
}

/** Index of the first element of a sorted array that is ≥ `value`. */
function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Every crash state of `trace` (see the module comment), deduplicated by image.
 *
 * For one prefix length p, the durable operations at or after p only grow with the crash point,
 * so (p, how many of them) names the set of applied operations: trees are built once per such
 * set (and tear), then hashed.
 */
export function crashStates<E>(trace: Trace<E>, options: CrashStateOptions = {}): CrashStates {
  const cuts = options.cuts ?? defaultCuts;
  const earlierCuts = options.earlierCuts ?? ((site: TearSite) => [Math.floor(site.length / 2)]);
  const { ops } = trace;
  const durableAt = durability(ops);
  const byBarrier = new Map<number, number[]>();
  durableAt.forEach((at, index) => {
    if (!Number.isFinite(at)) return;
    const list = byBarrier.get(at);
    if (list === undefined) byBarrier.set(at, [index]);
    else list.push(index);
  });
  const nextWrite = ops.map(() => Number.POSITIVE_INFINITY);
  const lastWriteOf = new Map<Inode, number>();
  ops.forEach((op, index) => {
    if (op.kind !== 'write') return;
    const previous = lastWriteOf.get(op.inode);
    if (previous !== undefined) nextWrite[previous] = index;
    lastWriteOf.set(op.inode, index);
  });
  const site = (index: number, crashPoint: number): TearSite => ({
    index,
    length: (ops[index] as Extract<TraceOp<E>, { kind: 'write' }>).data.length,
    crashPoint,
    everDurable: Number.isFinite(durableAt[index]),
    nextWrite: nextWrite[index] as number,
  });
  // Durable mutating operations so far, sorted; and the same as a set.
  const durableList: number[] = [];
  const durable = new Set<number>();
  const hashes = new Map<string, string>();
  const distinct = new Map<string, DistinctState>();
  let generated = 0;
  let events = 0;

  const visit = (spec: StateSpec, key: string, earlier: boolean): void => {
    generated += 1;
    let hash = hashes.get(key);
    if (hash === undefined) {
      const tree = buildState(trace, spec, durableAt);
      if (tree.mismatches > 0)
        throw new Error(
          `crash-states: the model applied an operation whose entry is not in the state (${describeSpec(trace, spec)})`,
        );
      hash = hashTree(tree);
      hashes.set(key, hash);
    }
    let state = distinct.get(hash);
    if (state === undefined) {
      state = { hash, spec, contexts: new Map(), earlierTear: false, pure: false, untorn: false };
      distinct.set(hash, state);
    }
    if (!state.contexts.has(events)) state.contexts.set(events, spec);
    if (earlier) state.earlierTear = true;
    else state.pure = true;
    if (spec.tear === undefined) state.untorn = true;
  };

  for (let crashPoint = -1; crashPoint < ops.length; crashPoint += 1) {
    if (crashPoint >= 0) {
      const op = ops[crashPoint] as TraceOp<E>;
      if (op.kind === 'event') events += 1;
      for (const index of byBarrier.get(crashPoint) ?? []) {
        durable.add(index);
        durableList.splice(lowerBound(durableList, index), 0, index);
      }
    }
    // Prefix lengths that add an operation not already applied (the others repeat a state).
    const prefixes = [0];
    for (let index = 0; index <= crashPoint; index += 1) {
      if (isMutating(ops[index] as TraceOp<E>) && !durable.has(index)) prefixes.push(index + 1);
    }
    let lastWrite = -1;
    let scanned = 0;
    const pendingWrites: number[] = [];
    for (const prefix of prefixes) {
      // The last write of the prefix that is not durable: the one that may be torn.
      for (; scanned < prefix; scanned += 1) {
        if ((ops[scanned] as TraceOp<E>).kind === 'write' && !durable.has(scanned)) {
          lastWrite = scanned;
          pendingWrites.push(scanned);
        }
      }
      const set = `${prefix}:${durableList.length - lowerBound(durableList, prefix)}`;
      visit({ crashPoint, prefix }, set, false);
      if (lastWrite >= 0) {
        const torn = site(lastWrite, crashPoint);
        for (const cut of cuts(torn)) {
          if (cut > 0 && cut < torn.length)
            visit({ crashPoint, prefix, tear: { op: lastWrite, cut } }, `${set}:${lastWrite}:${cut}`, false);
        }
      }
    }
    if (earlierCuts !== false) {
      const prefix = prefixes[prefixes.length - 1] as number;
      const set = `${prefix}:${durableList.length - lowerBound(durableList, prefix)}`;
      for (const write of pendingWrites.slice(0, -1)) {
        const length = (ops[write] as Extract<TraceOp<E>, { kind: 'write' }>).data.length;
        for (const cut of earlierCuts(site(write, crashPoint))) {
          if (cut > 0 && cut < length)
            visit({ crashPoint, prefix, tear: { op: write, cut } }, `${set}:${write}:${cut}`, true);
        }
      }
    }
  }
  return {
    operations: ops.length,
    mutating: ops.filter(isMutating).length,
    crashPoints: ops.length + 1,
    generated,
    built: hashes.size,
    distinct: [...distinct.values()],
  };
}

/** A report of a crash state: which operations reached the disk, which are durable, which was torn. */
export function describeSpec<E>(trace: Trace<E>, spec: StateSpec, describeEvent?: (event: E) => string): string {
  const durableAt = durability(trace.ops);
  const lines = [
    `crash after op ${spec.crashPoint}, prefix ${spec.prefix}${spec.tear === undefined ? '' : `, op ${spec.tear.op} torn at ${spec.tear.cut} bytes`}`,
  ];
  for (let index = 0; index <= spec.crashPoint; index += 1) {
    const op = trace.ops[index] as TraceOp<E>;
    const isDurable = (durableAt[index] as number) <= spec.crashPoint;
    const applied = isMutating(op) && (index < spec.prefix || isDurable);
    const mark = !isMutating(op) ? ' ' : !applied ? '-' : spec.tear?.op === index ? '~' : isDurable ? 'D' : '+';
    lines.push(`${mark} ${String(index).padStart(4)} ${describeOp(op, describeEvent)}`);
  }
  return lines.join('\n');
}
