/**
 * A recording `FileSystem` for crash-consistency tests (ALICE / CrashMonkey style): it passes every
 * call of the file store through to Node's `fs` — the workload really runs, on a real directory —
 * and appends each mutating call to a trace, in the model's terms: inodes and directory entries.
 *
 * - `create` / `mkdir` / `rename` / `unlink` are namespace operations of the directories they
 *   change (a rename of both), made durable by an fsync of those directories;
 * - `write` (at its real absolute offset) and `truncate` are data operations of an inode, made
 *   durable by an fsync or fdatasync of that inode;
 * - `fsync` / `dirsync` are those barriers, recorded when the call returns and covering the
 *   operations recorded before it was called (`upTo`);
 * - `event`s are what the workload puts in the same trace (an operation begun, an acknowledgement
 *   received), so that the trace says which writes a caller was told were durable, and when.
 *
 * Reads pass through unrecorded. Paths outside the root, and the store's `locks/` directory, are
 * not modelled: locks do not go through the `FileSystem` (they coordinate live processes, see
 * `src/stores/file/lock.ts`), and after a real crash they are stale, which the lock module handles
 * (a stale owner is detected and its lock broken) — so a crash state simply has no `locks/`.
 *
 * The recorder keeps a live model (every operation applied) to resolve paths to inodes, and
 * checks it against the real file system as it goes (inode identities, append offsets), so that
 * a gap in the model fails the workload instead of silently producing wrong crash states.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Done, FileSystem } from '../../src/stores/file/file-system.js';

/** An inode number of the model (not the real one: real numbers are reused after an unlink). */
export type Inode = number;

/** The root directory's inode. */
export const ROOT: Inode = 0;

/** One entry of a trace. `path` fields are relative to the root, for reports only. */
export type TraceOp<E> =
  | {
      readonly kind: 'create';
      readonly dir: Inode;
      readonly name: string;
      readonly inode: Inode;
      readonly path: string;
    }
  | { readonly kind: 'mkdir'; readonly dir: Inode; readonly name: string; readonly inode: Inode; readonly path: string }
  | {
      readonly kind: 'rename';
      readonly fromDir: Inode;
      readonly fromName: string;
      readonly toDir: Inode;
      readonly toName: string;
      readonly inode: Inode;
      readonly path: string;
      readonly to: string;
    }
  | {
      readonly kind: 'unlink';
      readonly dir: Inode;
      readonly name: string;
      readonly inode: Inode;
      readonly path: string;
    }
  | {
      readonly kind: 'write';
      readonly inode: Inode;
      readonly offset: number;
      readonly data: Buffer;
      readonly path: string;
    }
  | { readonly kind: 'truncate'; readonly inode: Inode; readonly length: number; readonly path: string }
  | { readonly kind: 'fsync'; readonly inode: Inode; readonly upTo: number; readonly path: string }
  | { readonly kind: 'dirsync'; readonly inode: Inode; readonly upTo: number; readonly path: string }
  | { readonly kind: 'event'; readonly event: E };

/** Operations that change the persistent state (the others are barriers and events). */
export type MutatingOp = Extract<
  TraceOp<never>,
  { kind: 'create' | 'mkdir' | 'rename' | 'unlink' | 'write' | 'truncate' }
>;

/** True for operations that change the persistent state. */
export function isMutating<E>(op: TraceOp<E>): op is MutatingOp {
  return op.kind !== 'fsync' && op.kind !== 'dirsync' && op.kind !== 'event';
}

/** The directories whose fsync makes a namespace operation durable (all of them needed), or `undefined` for a data operation. */
export function namespaceDirs(op: MutatingOp): readonly Inode[] | undefined {
  switch (op.kind) {
    case 'create':
    case 'mkdir':
    case 'unlink':
      return [op.dir];
    case 'rename':
      return op.fromDir === op.toDir ? [op.fromDir] : [op.fromDir, op.toDir];
    case 'write':
    case 'truncate':
      return undefined;
    default:
      return op satisfies never;
  }
}

/** A one-line description of an operation, for reports. */
export function describeOp<E>(
  op: TraceOp<E>,
  describeEvent: (event: E) => string = (event) => JSON.stringify(event),
): string {
  switch (op.kind) {
    case 'create':
    case 'mkdir':
    case 'unlink':
      return `${op.kind} ${op.path} (inode ${op.inode})`;
    case 'rename':
      return `rename ${op.path} -> ${op.to} (inode ${op.inode})`;
    case 'write':
      return `write ${op.path} (inode ${op.inode}) @${op.offset} +${op.data.length} ${JSON.stringify(op.data.subarray(0, 48).toString('latin1'))}${op.data.length > 48 ? '…' : ''}`;
    case 'truncate':
      return `truncate ${op.path} (inode ${op.inode}) to ${op.length}`;
    case 'fsync':
      return `fsync ${op.path} (inode ${op.inode}, ops < ${op.upTo})`;
    case 'dirsync':
      return `dirsync ${op.path || '.'} (inode ${op.inode}, ops < ${op.upTo})`;
    case 'event':
      return `event ${describeEvent(op.event)}`;
    default:
      return op satisfies never;
  }
}

interface FileNode {
  readonly kind: 'file';
  /** Capacity buffer: bytes past `size` are not part of the file. */
  data: Buffer;
  size: number;
}

interface DirNode {
  readonly kind: 'dir';
  readonly entries: Map<string, Inode>;
}

type Node = FileNode | DirNode;

/**
 * The model of a directory tree: inodes (files with bytes, directories with entries) and the
 * root. Applying an operation whose premise does not hold in this state (an entry that is not
 * there) changes nothing and is counted in `mismatches`: with the durability rules of
 * `crash-states.ts` it cannot happen, so a count above zero is a bug of the model.
 */
export class Tree {
  readonly nodes = new Map<Inode, Node>();
  mismatches = 0;

  constructor() {
    this.nodes.set(ROOT, { kind: 'dir', entries: new Map() });
  }

  clone(): Tree {
    const copy = new Tree();
    for (const [inode, node] of this.nodes) {
      copy.nodes.set(
        inode,
        node.kind === 'dir'
          ? { kind: 'dir', entries: new Map(node.entries) }
          : { kind: 'file', data: Buffer.from(node.data.subarray(0, node.size)), size: node.size },
      );
    }
    return copy;
  }

  private dir(inode: Inode): DirNode {
    let node = this.nodes.get(inode);
    if (node === undefined) {
      // A directory whose mkdir is not in this state: it holds entries nobody can reach.
      node = { kind: 'dir', entries: new Map() };
      this.nodes.set(inode, node);
    }
    if (node.kind !== 'dir') throw new Error(`model: inode ${inode} is not a directory`);
    return node;
  }

  private file(inode: Inode): FileNode {
    let node = this.nodes.get(inode);
    if (node === undefined) {
      // Data of a file whose creation is not in this state: unreachable, so absent from the image.
      node = { kind: 'file', data: Buffer.alloc(0), size: 0 };
      this.nodes.set(inode, node);
    }
    if (node.kind !== 'file') throw new Error(`model: inode ${inode} is not a file`);
    return node;
  }

  /** Sets a file's size: growing reads as zeros (as a gap does on a real disk). */
  private resize(node: FileNode, size: number): void {
    if (size > node.data.length) {
      const grown = Buffer.alloc(Math.max(size, node.data.length * 2, 256));
      node.data.copy(grown, 0, 0, node.size);
      node.data = grown;
    } else if (size > node.size) {
      node.data.fill(0, node.size, size);
    }
    node.size = size;
  }

  /** Applies one operation; a write with `cut` keeps only its first `cut` bytes (a torn write). */
  apply(op: MutatingOp, cut?: number): void {
    switch (op.kind) {
      case 'create':
        this.nodes.set(op.inode, { kind: 'file', data: Buffer.alloc(0), size: 0 });
        this.dir(op.dir).entries.set(op.name, op.inode);
        return;
      case 'mkdir':
        if (!this.nodes.has(op.inode)) this.nodes.set(op.inode, { kind: 'dir', entries: new Map() });
        this.dir(op.dir).entries.set(op.name, op.inode);
        return;
      case 'rename': {
        const from = this.dir(op.fromDir);
        if (from.entries.get(op.fromName) !== op.inode) {
          this.mismatches += 1;
          return;
        }
        from.entries.delete(op.fromName);
        this.dir(op.toDir).entries.set(op.toName, op.inode);
        return;
      }
      case 'unlink': {
        const dir = this.dir(op.dir);
        if (dir.entries.get(op.name) !== op.inode) {
          this.mismatches += 1;
          return;
        }
        dir.entries.delete(op.name);
        return;
      }
      case 'write': {
        const node = this.file(op.inode);
        const length = cut ?? op.data.length;
        if (node.size < op.offset + length) this.resize(node, op.offset + length);
        op.data.copy(node.data, op.offset, 0, length);
        return;
      }
      case 'truncate': {
        const node = this.file(op.inode);
        this.resize(node, op.length);
        return;
      }
      default:
        op satisfies never;
    }
  }

  /** The entry `name` of directory `dir`, if any. */
  lookup(dir: Inode, name: string): Inode | undefined {
    const node = this.nodes.get(dir);
    return node?.kind === 'dir' ? node.entries.get(name) : undefined;
  }

  /** The kind of an inode, if it exists. */
  kindOf(inode: Inode): 'file' | 'dir' | undefined {
    return this.nodes.get(inode)?.kind;
  }

  /** A file's size. */
  sizeOf(inode: Inode): number {
    const node = this.nodes.get(inode);
    return node?.kind === 'file' ? node.size : 0;
  }

  /**
   * Every reachable entry, depth first in name order: directories before what they hold. Paths
   * are relative to the root, with `/`.
   */
  *walk(
    dir: Inode = ROOT,
    prefix = '',
  ): Generator<
    { readonly path: string; readonly inode: Inode } & (
      { readonly kind: 'dir' } | { readonly kind: 'file'; readonly data: Buffer }
    )
  > {
    const node = this.nodes.get(dir);
    if (node?.kind !== 'dir') return;
    for (const name of [...node.entries.keys()].sort()) {
      const inode = node.entries.get(name) as Inode;
      const child = this.nodes.get(inode);
      const entryPath = prefix === '' ? name : `${prefix}/${name}`;
      if (child === undefined) continue;
      if (child.kind === 'dir') {
        yield { path: entryPath, inode, kind: 'dir' };
        yield* this.walk(inode, entryPath);
      } else {
        yield { path: entryPath, inode, kind: 'file', data: child.data.subarray(0, child.size) };
      }
    }
  }
}

/** A recorded workload: the image before it and every operation in order. */
export interface Trace<E> {
  /** The absolute directory the workload ran in. */
  readonly root: string;
  readonly initial: Tree;
  readonly ops: ReadonlyArray<TraceOp<E>>;
}

interface OpenFile {
  readonly inode: Inode;
  readonly kind: 'file' | 'dir';
  readonly append: boolean;
  readonly path: string;
  /** The file position (writes with a `null` position on a descriptor without O_APPEND). */
  position: number;
}

interface Flags {
  readonly create: boolean;
  readonly truncate: boolean;
  readonly append: boolean;
}

function parseFlags(flags: string | number): Flags {
  if (typeof flags === 'number') {
    const { O_CREAT, O_TRUNC, O_APPEND } = fs.constants;
    return { create: (flags & O_CREAT) !== 0, truncate: (flags & O_TRUNC) !== 0, append: (flags & O_APPEND) !== 0 };
  }
  const base = flags.replace(/[sx]/g, '');
  switch (base) {
    case 'r':
    case 'r+':
      return { create: false, truncate: false, append: false };
    case 'w':
    case 'w+':
      return { create: true, truncate: true, append: false };
    case 'a':
    case 'a+':
      return { create: true, truncate: false, append: true };
    default:
      throw new Error(`crash-fs: unsupported open flags ${JSON.stringify(flags)}`);
  }
}

/** Where a path is in the model: its directory, its name, and its inode when it exists. */
interface Place {
  readonly dir: Inode;
  readonly name: string;
  readonly inode: Inode | undefined;
  readonly path: string;
}

/** The recording file system and its trace. */
export class CrashRecorder<E> {
  readonly root: string;
  private readonly ops: Array<TraceOp<E>> = [];
  private readonly initial: Tree;
  private readonly live: Tree;
  private readonly fds = new Map<number, OpenFile>();
  /** Real inode number → model inode, to check that the model follows the disk. */
  private readonly realInodes = new Map<number, Inode>();
  private readonly modelInodes = new Map<Inode, number>();
  private nextInode = ROOT + 1;
  /** The `FileSystem` to give the store. */
  readonly fileSystem: FileSystem;

  /** Records operations under `root` (which must exist), taking its current content as the initial image. */
  constructor(root: string) {
    this.root = path.resolve(root);
    this.initial = new Tree();
    this.scan(this.root, ROOT, '');
    this.live = this.initial.clone();
    this.fileSystem = this.makeFileSystem();
  }

  /** The trace so far (the live array: later operations appear in it). */
  get trace(): Trace<E> {
    return { root: this.root, initial: this.initial, ops: this.ops };
  }

  /** Puts a workload event (an operation begun, an acknowledgement) into the trace. */
  note(event: E): void {
    this.ops.push({ kind: 'event', event });
  }

  private scan(dir: string, inode: Inode, relative: string): void {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const entryPath = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (this.excluded(entryPath)) continue;
      const child = this.nextInode++;
      const full = path.join(dir, entry.name);
      this.pair(fs.statSync(full).ino, child);
      if (entry.isDirectory()) {
        this.initial.apply({ kind: 'mkdir', dir: inode, name: entry.name, inode: child, path: entryPath });
        this.scan(full, child, entryPath);
      } else if (entry.isFile()) {
        this.initial.apply({ kind: 'create', dir: inode, name: entry.name, inode: child, path: entryPath });
        this.initial.apply({ kind: 'write', inode: child, offset: 0, data: fs.readFileSync(full), path: entryPath });
      } else {
        throw new Error(`crash-fs: ${full} is neither a file nor a directory`);
      }
    }
  }

  /** Paths the model leaves out: the locks (see the module comment). */
  private excluded(relative: string): boolean {
    return relative === 'locks' || relative.startsWith('locks/');
  }

  /** The path relative to the root, or `undefined` when it is not modelled. */
  private relative(file: string): string | undefined {
    const relative = path.relative(this.root, path.resolve(file));
    if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    const normalized = relative.split(path.sep).join('/');
    return this.excluded(normalized) ? undefined : normalized;
  }

  /** Resolves a modelled path in the live model; throws when its directory is not in the model. */
  private place(relative: string): Place {
    const parts = relative.split('/');
    const name = parts.pop() as string;
    let dir = ROOT;
    for (const part of parts) {
      const next = this.live.lookup(dir, part);
      if (next === undefined || this.live.kindOf(next) !== 'dir')
        throw new Error(`crash-fs: the directory of ${relative} is not in the model`);
      dir = next;
    }
    return { dir, name, inode: this.live.lookup(dir, name), path: relative };
  }

  private record(op: TraceOp<E>): void {
    this.ops.push(op);
    if (isMutating(op)) this.live.apply(op);
    if (this.live.mismatches > 0) throw new Error(`crash-fs: the live model lost track at ${describeOp(op)}`);
  }

  /** Checks that the real file behind `fd` is the model's `inode` (and remembers the pair). */
  private identify(fd: number, inode: Inode, created: boolean): void {
    const real = fs.fstatSync(fd).ino;
    const known = this.realInodes.get(real);
    if (!created && known !== undefined && known !== inode)
      throw new Error(`crash-fs: model inode ${inode} is real inode ${real}, known as model inode ${known}`);
    this.pair(real, inode);
  }

  private pair(real: number, inode: Inode): void {
    this.realInodes.set(real, inode);
    this.modelInodes.set(inode, real);
  }

  /** Forgets the real number of an inode whose last name went: the file system may give it to a new file. */
  private forget(inode: Inode): void {
    const real = this.modelInodes.get(inode);
    if (real !== undefined && this.realInodes.get(real) === inode) this.realInodes.delete(real);
    this.modelInodes.delete(inode);
  }

  /** Records the data of a file written whole (`writeFileSync`, `copyFileSync`). */
  private recordWhole(relative: string, place: Place, data: Buffer): void {
    let inode = place.inode;
    if (inode === undefined) {
      inode = this.nextInode++;
      this.record({ kind: 'create', dir: place.dir, name: place.name, inode, path: relative });
      this.pair(fs.statSync(path.join(this.root, ...relative.split('/'))).ino, inode);
    } else if (this.live.sizeOf(inode) > 0) {
      this.record({ kind: 'truncate', inode, length: 0, path: relative });
    }
    if (data.length > 0) this.record({ kind: 'write', inode, offset: 0, data: Buffer.from(data), path: relative });
  }

  /** The offset a write at `position` lands at. */
  private offsetOf(fd: number, file: OpenFile, position: number | null): number {
    if (file.append) {
      const size = fs.fstatSync(fd).size;
      if (size !== this.live.sizeOf(file.inode))
        throw new Error(`crash-fs: ${file.path} has ${size} bytes, the model ${this.live.sizeOf(file.inode)}`);
      return size;
    }
    return position ?? file.position;
  }

  private afterWrite(
    file: OpenFile,
    offset: number,
    buffer: Uint8Array,
    start: number,
    written: number,
    position: number | null,
  ): void {
    if (written > 0)
      this.record({
        kind: 'write',
        inode: file.inode,
        offset,
        data: Buffer.from(buffer.subarray(start, start + written)),
        path: file.path,
      });
    if (position === null && !file.append) file.position += written;
  }

  /** A barrier on `fd`, covering the operations recorded before `upTo`. */
  private barrier(fd: number, upTo: number): void {
    const file = this.fds.get(fd);
    if (file === undefined) return;
    if (file.kind === 'dir') this.record({ kind: 'dirsync', inode: file.inode, upTo, path: file.path });
    else this.record({ kind: 'fsync', inode: file.inode, upTo, path: file.path });
  }

  /** The namespace operations of a recursive removal, deepest first (as `rm -r` does them). */
  private removeTree(dir: Inode, name: string, relative: string): void {
    const inode = this.live.lookup(dir, name);
    if (inode === undefined) return;
    if (this.live.kindOf(inode) === 'dir') {
      const node = this.live.nodes.get(inode) as DirNode;
      for (const child of [...node.entries.keys()].sort()) this.removeTree(inode, child, `${relative}/${child}`);
    }
    this.record({ kind: 'unlink', dir, name, inode, path: relative });
    this.forget(inode);
  }

  private makeFileSystem(): FileSystem {
    const open = (file: string, flags: string | number, mode?: number): number => {
      const relative = this.relative(file);
      if (relative === undefined) return fs.openSync(file, flags, mode);
      if (relative === '') {
        const fd = fs.openSync(file, flags, mode);
        this.fds.set(fd, { inode: ROOT, kind: 'dir', append: false, path: '', position: 0 });
        return fd;
      }
      const parsed = parseFlags(flags);
      // The real call first: a missing file or directory fails as it would without the recorder.
      const fd = fs.openSync(file, flags, mode);
      const place = this.place(relative);
      let inode = place.inode;
      const created = inode === undefined;
      if (inode === undefined) {
        if (!parsed.create) throw new Error(`crash-fs: ${relative} opened but not in the model`);
        inode = this.nextInode++;
        this.record({ kind: 'create', dir: place.dir, name: place.name, inode, path: relative });
      } else if (parsed.truncate && this.live.kindOf(inode) === 'file' && this.live.sizeOf(inode) > 0) {
        this.record({ kind: 'truncate', inode, length: 0, path: relative });
      }
      this.identify(fd, inode, created);
      this.fds.set(fd, {
        inode,
        kind: this.live.kindOf(inode) === 'dir' ? 'dir' : 'file',
        append: parsed.append,
        path: relative,
        position: 0,
      });
      return fd;
    };

    const recorder: FileSystem = {
      openSync: open,
      closeSync: (fd) => {
        fs.closeSync(fd);
        this.fds.delete(fd);
      },
      fstatSync: (fd) => fs.fstatSync(fd),
      statSync: (file, options) => fs.statSync(file, options),
      readSync: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
      readFileSync: (file) => fs.readFileSync(file),
      readdirSync: (dir) => fs.readdirSync(dir),
      existsSync: (file) => fs.existsSync(file),
      writeSync: (fd, buffer, offset, length, position) => {
        const file = this.fds.get(fd);
        const at = file === undefined ? 0 : this.offsetOf(fd, file, position);
        const written = fs.writeSync(fd, buffer, offset, length, position);
        if (file !== undefined) this.afterWrite(file, at, buffer, offset, written, position);
        return written;
      },
      write: (fd, buffer, offset, length, position, callback) => {
        const file = this.fds.get(fd);
        const at = file === undefined ? 0 : this.offsetOf(fd, file, position);
        fs.write(fd, buffer, offset, length, position, (error, written) => {
          // Recorded when done: the bytes reached the file somewhere between the call and now.
          if (error === null && file !== undefined) this.afterWrite(file, at, buffer, offset, written, position);
          callback(error, written);
        });
      },
      writeFileSync: (file, data, options) => {
        fs.writeFileSync(file, data, options);
        const relative = this.relative(file);
        if (relative !== undefined) this.recordWhole(relative, this.place(relative), Buffer.from(data));
      },
      copyFileSync: (from, to) => {
        fs.copyFileSync(from, to);
        const relative = this.relative(to);
        if (relative !== undefined) this.recordWhole(relative, this.place(relative), fs.readFileSync(to));
      },
      renameSync: (from, to) => {
        const source = this.relative(from);
        const target = this.relative(to);
        if ((source === undefined) !== (target === undefined))
          throw new Error(`crash-fs: a rename into or out of the model (${from} -> ${to})`);
        fs.renameSync(from, to);
        // The model is changed only by `record`: it still shows the state before the call.
        const fromPlace = source === undefined ? undefined : this.place(source);
        const toPlace = target === undefined ? undefined : this.place(target);
        if (fromPlace === undefined || toPlace === undefined) return;
        if (fromPlace.inode === undefined) throw new Error(`crash-fs: renamed ${source} is not in the model`);
        this.record({
          kind: 'rename',
          fromDir: fromPlace.dir,
          fromName: fromPlace.name,
          toDir: toPlace.dir,
          toName: toPlace.name,
          inode: fromPlace.inode,
          path: fromPlace.path,
          to: toPlace.path,
        });
        if (toPlace.inode !== undefined && toPlace.inode !== fromPlace.inode) this.forget(toPlace.inode);
      },
      unlinkSync: (file) => {
        fs.unlinkSync(file);
        const relative = this.relative(file);
        const place = relative === undefined ? undefined : this.place(relative);
        if (place === undefined) return;
        if (place.inode === undefined) throw new Error(`crash-fs: unlinked ${relative} is not in the model`);
        this.record({ kind: 'unlink', dir: place.dir, name: place.name, inode: place.inode, path: place.path });
        this.forget(place.inode);
      },
      mkdirSync: (dir, options) => {
        const relative = this.relative(dir);
        // The directories a recursive mkdir will create: the missing tail of the path.
        const missing: string[] = [];
        if (relative !== undefined && relative !== '') {
          const parts = relative.split('/');
          let at = ROOT;
          for (let index = 0; index < parts.length; index += 1) {
            const next = this.live.lookup(at, parts[index] as string);
            if (next === undefined) {
              missing.push(...parts.slice(index).map((_, offset) => parts.slice(0, index + offset + 1).join('/')));
              break;
            }
            at = next;
          }
        }
        const first = fs.mkdirSync(dir, options);
        if (relative === undefined) return first;
        const expected = missing[0] === undefined ? undefined : path.join(this.root, ...missing[0].split('/'));
        if ((first === undefined ? undefined : path.resolve(first)) !== expected)
          throw new Error(`crash-fs: mkdir ${relative} created ${first}, the model expected ${expected}`);
        for (const created of missing) {
          const place = this.place(created);
          const inode = this.nextInode++;
          this.record({ kind: 'mkdir', dir: place.dir, name: place.name, inode, path: created });
          this.pair(fs.statSync(path.join(this.root, ...created.split('/'))).ino, inode);
        }
        return first;
      },
      ftruncateSync: (fd, length) => {
        fs.ftruncateSync(fd, length);
        const file = this.fds.get(fd);
        if (file !== undefined) this.record({ kind: 'truncate', inode: file.inode, length, path: file.path });
      },
      fdatasyncSync: (fd) => {
        const upTo = this.ops.length;
        fs.fdatasyncSync(fd);
        this.barrier(fd, upTo);
      },
      fdatasync: (fd, callback: Done) => {
        const upTo = this.ops.length;
        fs.fdatasync(fd, (error) => {
          if (error === null) this.barrier(fd, upTo);
          callback(error);
        });
      },
      fsync: (fd, callback: Done) => {
        const upTo = this.ops.length;
        fs.fsync(fd, (error) => {
          if (error === null) this.barrier(fd, upTo);
          callback(error);
        });
      },
      rm: (target, options, callback: Done) => {
        const relative = this.relative(target);
        fs.rm(target, options, (error) => {
          // Recorded when done (the tree went somewhere between the call and now), deepest first.
          if (error === null && relative !== undefined && relative !== '') {
            const place = this.place(relative);
            this.removeTree(place.dir, place.name, relative);
          }
          callback(error);
        });
      },
    };
    return recorder;
  }
}
