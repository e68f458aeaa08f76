/**
 * `VectorMatrix`: one owner's message vectors in one contiguous block of float32 rows, so that a
 * recall compares the query with every message in one tight pass (a Map of objects each with its
 * own array cost 50 ms a recall at 100k messages of 64 dimensions; this, a few). Rows are appended
 * as vectors are set; a removed row is marked dead and the dead are squeezed out once they
 * outnumber the live. Rows are padded with zeros to a multiple of 16 floats.
 *
 * A small matrix lives in a plain Float32Array and is scanned by a JavaScript loop. From
 * `WASM_MIN_BYTES` on it lives in WebAssembly memory, scanned by the kernel below: 128-bit SIMD,
 * four float32 products an instruction, where JavaScript has none (100k rows of 64 dimensions:
 * about 3 ms against 10–14 ms on the bench machine, the kernel bound by reading the 25 MB). Small
 * owners stay in JavaScript because a WebAssembly memory takes at least a 64 KiB page each. Where
 * WebAssembly or its SIMD is unavailable (an old engine, `--jitless`), every size uses the loop.
 * @module
 */

// --- The kernel ---

/*
 * Written by hand (no toolchain for 200 bytes), from this text; pointers are in bytes, `stride` in
 * floats; the caller keeps rows 16-byte aligned and zero-padded to the stride.
 *
 *   (module
 *     (memory (import "m" "memory") 1)
 *     ;; out[r] = dot(query, row r) for `count` rows of `stride` floats (a multiple of 16)
 *     (func (export "dots") (param $query i32) (param $row i32) (param $count i32) (param $stride i32)
 *           (param $out i32) (local $i i32) (local $bytes i32) (local $p i32) (local $r i32)
 *           (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
 *       (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
 *       (block (br_if 0 (i32.eqz (local.get $count)))
 *         (loop
 *           (local.set $a3 (local.tee $a2 (local.tee $a1 (local.tee $a0 (v128.const i32x4 0 0 0 0)))))
 *           (local.set $i (i32.const 0))
 *           (loop ;; 16 dimensions a turn, in four independent sums (one would wait on each addition)
 *             (local.set $p (i32.add (local.get $query) (local.get $i)))
 *             (local.set $r (i32.add (local.get $row) (local.get $i)))
 *             (local.set $a0 (f32x4.add (local.get $a0)
 *               (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $r)))))
 *             (local.set $a1 (f32x4.add (local.get $a1)
 *               (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $r)))))
 *             (local.set $a2 ... offset=32 ...) (local.set $a3 ... offset=48 ...)
 *             (br_if 0 (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 64))) (local.get $bytes))))
 *           (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1))
 *                                     (f32x4.add (local.get $a2) (local.get $a3))))
 *           (f32.store (local.get $out) (f32.add (f32.add (f32.add
 *             (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
 *             (f32x4.extract_lane 2 (local.get $a0))) (f32x4.extract_lane 3 (local.get $a0))))
 *           (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *           (local.set $row (i32.add (local.get $row) (local.get $bytes)))
 *           (br_if 0 (local.tee $count (i32.sub (local.get $count) (i32.const 1))))))))
 */

/** The signature of the kernel's function (see above). */
type Dots = (query: number, row: number, count: number, stride: number, out: number) => void;

// prettier-ignore
const BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // '\0asm', version 1
  0x01, 0x09, 0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, // type section: (i32 i32 i32 i32 i32) -> ()
  0x02, 0x0d, 0x01, 0x01, 0x6d, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x01, // import section: memory "m" "memory", at least 1 page
  0x03, 0x02, 0x01, 0x00, // function section: one function, of type 0
  0x07, 0x08, 0x01, 0x04, 0x64, 0x6f, 0x74, 0x73, 0x00, 0x00, // export section: "dots" is function 0
  0x0a, 0xf5, 0x01, 0x01, 0xf2, 0x01, // code section: one body of 242 bytes
  0x02, 0x04, 0x7f, 0x04, 0x7b, // locals: $i $bytes $p $r i32, $a0 $a1 $a2 $a3 v128
  0x20, 0x03, 0x41, 0x02, 0x74, 0x21, 0x06, // local.get $stride; i32.const 2; i32.shl; local.set $bytes
  0x02, 0x40, // block
  0x20, 0x02, 0x45, 0x0d, 0x00, // local.get $count; i32.eqz; br_if 0 (no rows)
  0x03, 0x40, // loop (rows)
  0xfd, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x22, 0x09, 0x22, 0x0a, 0x22, 0x0b, 0x21, 0x0c, // v128.const 0; local.tee $a0; local.tee $a1; local.tee $a2; local.set $a3
  0x41, 0x00, 0x21, 0x05, // i32.const 0; local.set $i
  0x03, 0x40, // loop (dimensions, 16 at a time in four sums)
  0x20, 0x00, 0x20, 0x05, 0x6a, 0x21, 0x07, // local.get $query; local.get $i; i32.add; local.set $p
  0x20, 0x01, 0x20, 0x05, 0x6a, 0x21, 0x08, // local.get $row; local.get $i; i32.add; local.set $r
  0x20, 0x09, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x00, 0x20, 0x08, 0xfd, 0x00, 0x04, 0x00, 0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, 0x21, 0x09, // local.get $a0; local.get $p; v128.load offset=0; local.get $r; v128.load offset=0; f32x4.mul; f32x4.add; local.set $a0
  0x20, 0x0a, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x10, 0x20, 0x08, 0xfd, 0x00, 0x04, 0x10, 0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, 0x21, 0x0a, // local.get $a1; local.get $p; v128.load offset=16; local.get $r; v128.load offset=16; f32x4.mul; f32x4.add; local.set $a1
  0x20, 0x0b, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x20, 0x20, 0x08, 0xfd, 0x00, 0x04, 0x20, 0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, 0x21, 0x0b, // local.get $a2; local.get $p; v128.load offset=32; local.get $r; v128.load offset=32; f32x4.mul; f32x4.add; local.set $a2
  0x20, 0x0c, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x30, 0x20, 0x08, 0xfd, 0x00, 0x04, 0x30, 0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, 0x21, 0x0c, // local.get $a3; local.get $p; v128.load offset=48; local.get $r; v128.load offset=48; f32x4.mul; f32x4.add; local.set $a3
  0x20, 0x05, 0x41, 0xc0, 0x00, 0x6a, 0x22, 0x05, 0x20, 0x06, 0x49, 0x0d, 0x00, // local.get $i; i32.const 64; i32.add; local.tee $i; local.get $bytes; i32.lt_u; br_if 0 (next 16 dimensions)
  0x0b, // end
  0x20, 0x09, 0x20, 0x0a, 0xfd, 0xe4, 0x01, 0x20, 0x0b, 0x20, 0x0c, 0xfd, 0xe4, 0x01, 0xfd, 0xe4, 0x01, 0x21, 0x09, // local.get $a0; local.get $a1; f32x4.add; local.get $a2; local.get $a3; f32x4.add; f32x4.add; local.set $a0
  0x20, 0x04, 0x20, 0x09, 0xfd, 0x1f, 0x00, 0x20, 0x09, 0xfd, 0x1f, 0x01, 0x92, 0x20, 0x09, 0xfd, 0x1f, 0x02, 0x92, 0x20, 0x09, 0xfd, 0x1f, 0x03, 0x92, 0x38, 0x02, 0x00, // local.get $out; local.get $a0; f32x4.extract_lane 0; local.get $a0; f32x4.extract_lane 1; f32.add; local.get $a0; f32x4.extract_lane 2; f32.add; local.get $a0; f32x4.extract_lane 3; f32.add; f32.store
  0x20, 0x04, 0x41, 0x04, 0x6a, 0x21, 0x04, // local.get $out; i32.const 4; i32.add; local.set $out
  0x20, 0x01, 0x20, 0x06, 0x6a, 0x21, 0x01, // local.get $row; local.get $bytes; i32.add; local.set $row
  0x20, 0x02, 0x41, 0x01, 0x6b, 0x22, 0x02, 0x0d, 0x00, // local.get $count; i32.const 1; i32.sub; local.tee $count; br_if 0 (next row)
  0x0b, // end
  0x0b, // end
  0x0b, // end (function)
]);

/** The part of the WebAssembly API the kernel uses (the compiler's lib has no WebAssembly values). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  readonly Module: new (bytes: Uint8Array) => WasmModule;
  readonly Instance: new (module: WasmModule, imports: object) => { readonly exports: Record<string, unknown> };
  readonly Memory: new (descriptor: { initial: number }) => WasmMemory;
}

/** A compiled kernel. */
interface WasmModule {
  readonly compiled: unique symbol;
}

/** Linear memory: an `ArrayBuffer` that grows by 64 KiB pages (views of it must be made again after). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** Bytes of a WebAssembly memory page. */
const WASM_PAGE = 65_536;

const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
let compiled: WasmModule | null | undefined;

/** The compiled kernel, or `undefined` where this engine cannot run it (checked once). */
function dotKernel(): WasmModule | undefined {
  if (compiled === undefined) {
    try {
      compiled = wasm !== undefined && wasm.validate(BYTES) ? new wasm.Module(BYTES) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

/** Whether this engine runs the SIMD kernel (where it does not, large matrices use the JavaScript loop too). */
export function simdAvailable(): boolean {
  return dotKernel() !== undefined;
}

/** A memory of `pages` pages and the kernel's `dots` working in it. */
function kernelMemory(kernel: WasmModule, pages: number): { memory: WasmMemory; dots: Dots } {
  const api = wasm as WasmApi;
  const memory = new api.Memory({ initial: pages });
  const dots = new api.Instance(kernel, { m: { memory } }).exports.dots as Dots;
  return { memory, dots };
}

// --- The matrix ---

/** A row the scan found, by the id its owner gave it. */
export interface NearRow {
  readonly id: number;
  readonly similarity: number;
}

/** What `VectorMatrix.scan` returns: the nearest rows and the distribution of every row's similarity. */
export interface MatrixScan {
  /** The `limit` rows most similar to the query with a positive similarity, best first. */
  readonly nearest: NearRow[];
  /** Live rows compared. */
  readonly count: number;
  /** Mean similarity over every live row. */
  readonly mean: number;
  /** Standard deviation of the similarity over every live row. */
  readonly spread: number;
  /** The similarity of `id` (`undefined` without a vector) as this scan computed it; valid until the matrix changes. */
  readonly similarity: (id: number) => number | undefined;
}

/** Rows allocated at first. */
const INITIAL_ROWS = 64;
/** Dead rows tolerated before a compaction (below this, squeezing saves too little to be worth it). */
const MIN_DEAD_TO_COMPACT = 1024;
/** Bytes of rows from which the matrix moves into WebAssembly memory (1,024 rows of 64 dimensions). */
export const WASM_MIN_BYTES = 256 * 1024;
/** Most bytes a WebAssembly memory holds here (its addresses are 32-bit); beyond, the JavaScript loop. */
const WASM_MAX_BYTES = 2 ** 31;

/** Floats per row: `width` rounded up to whole groups of 16 (the kernel reads 16 a turn). */
function strideOf(width: number): number {
  return Math.ceil(width / 16) * 16;
}

/** `out[r]` = dot(query, row r) for the first `count` rows: the kernel's work, in JavaScript. */
function dotsInJs(query: Float32Array, data: Float32Array, count: number, stride: number, out: Float32Array): void {
  let row = 0;
  // Four rows at once: each query value is read once for four products, and four sums run independently.
  for (; row + 4 <= count; row += 4) {
    const o0 = row * stride;
    const o1 = o0 + stride;
    const o2 = o1 + stride;
    const o3 = o2 + stride;
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let i = 0; i < stride; i++) {
      const x = query[i] as number;
      a += x * (data[o0 + i] as number);
      b += x * (data[o1 + i] as number);
      c += x * (data[o2 + i] as number);
      d += x * (data[o3 + i] as number);
    }
    out[row] = a;
    out[row + 1] = b;
    out[row + 2] = c;
    out[row + 3] = d;
  }
  for (; row < count; row++) {
    const offset = row * stride;
    let a = 0;
    for (let i = 0; i < stride; i++) a += (query[i] as number) * (data[offset + i] as number);
    out[row] = a;
  }
}

/**
 * The best `limit` (similarity, id) pairs offered, higher similarity first and then higher id: a
 * heap in typed arrays with the worst kept at the root, so that the common case, a row below the
 * worst kept, costs one comparison and no allocation.
 */
class NearestRows {
  private readonly similarities: Float64Array;
  private readonly ids: Uint32Array;
  private size = 0;

  constructor(private readonly limit: number) {
    this.similarities = new Float64Array(Math.max(0, limit));
    this.ids = new Uint32Array(Math.max(0, limit));
  }

  /** Whether `limit` pairs are kept. */
  get full(): boolean {
    return this.size >= this.limit;
  }

  /** The worst pair kept (similarity, id). */
  get worst(): [number, number] {
    return [this.similarities[0] as number, this.ids[0] as number];
  }

  /** Whether (a, ia) ranks below (b, ib). */
  private static worse(a: number, ia: number, b: number, ib: number): boolean {
    return a < b || (a === b && ia < ib);
  }

  /** Keeps (similarity, id) if it is among the best `limit` so far (`limit` ≥ 1). */
  offer(id: number, similarity: number): void {
    const { similarities, ids, limit } = this;
    if (this.size < limit) {
      // Sift up: the new pair rises while it is worse than its parent.
      let index = this.size++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!NearestRows.worse(similarity, id, similarities[parent] as number, ids[parent] as number)) break;
        similarities[index] = similarities[parent] as number;
        ids[index] = ids[parent] as number;
        index = parent;
      }
      similarities[index] = similarity;
      ids[index] = id;
      return;
    }
    if (!NearestRows.worse(similarities[0] as number, ids[0] as number, similarity, id)) return;
    // Replace the root (the worst kept) and sift down.
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= limit) break;
      const right = left + 1;
      let child = left;
      if (
        right < limit &&
        NearestRows.worse(
          similarities[right] as number,
          ids[right] as number,
          similarities[left] as number,
          ids[left] as number,
        )
      )
        child = right;
      if (!NearestRows.worse(similarities[child] as number, ids[child] as number, similarity, id)) break;
      similarities[index] = similarities[child] as number;
      ids[index] = ids[child] as number;
      index = child;
    }
    similarities[index] = similarity;
    ids[index] = id;
  }

  /** The kept pairs, best first. */
  sorted(): NearRow[] {
    const rows: NearRow[] = [];
    for (let index = 0; index < this.size; index++)
      rows.push({ id: this.ids[index] as number, similarity: this.similarities[index] as number });
    return rows.sort((a, b) => b.similarity - a.similarity || b.id - a.id);
  }
}

/** Unit vectors of one dimension count, by positive integer id (see the module comment). */
export class VectorMatrix {
  private width = 0;
  private stride = 0;
  private capacity = 0;
  /** Rows in use, live or dead. */
  private rows = 0;
  private dead = 0;
  /** Id of each row; 0 marks a dead row. */
  private ids = new Uint32Array(0);
  private readonly rowOf = new Map<number, number>();
  private data = new Float32Array(0);
  /** The query being scanned, padded (in WebAssembly memory when the rows are). */
  private query = new Float32Array(0);
  /** Similarities of the last scan, one per row (reused: 100k fresh floats per recall would churn the GC). */
  private out = new Float32Array(0);
  private wasm: { readonly memory: WasmMemory; readonly dots: Dots } | undefined;

  constructor(
    /** `simd: false` keeps the rows in a JavaScript array at any size (tests compare the two loops). */
    private readonly options: { readonly simd?: boolean } = {},
  ) {}

  /** Vectors held. */
  get size(): number {
    return this.rowOf.size;
  }

  /** Length of every vector held (0 while empty). */
  get dimensions(): number {
    return this.width;
  }

  /** Whether the rows live in WebAssembly memory (scanned by the SIMD kernel). */
  get simd(): boolean {
    return this.wasm !== undefined;
  }

  /** Forgets every vector (another vector space: their similarities are not comparable). */
  clear(): void {
    this.width = 0;
    this.stride = 0;
    this.capacity = 0;
    this.rows = 0;
    this.dead = 0;
    this.ids = new Uint32Array(0);
    this.rowOf.clear();
    this.data = new Float32Array(0);
    this.query = new Float32Array(0);
    this.out = new Float32Array(0);
    this.wasm = undefined;
  }

  /** Whether `id` has a vector. */
  has(id: number): boolean {
    return this.rowOf.has(id);
  }

  /** A copy of the vector of `id` (a copy: rows move when the matrix grows or is compacted). */
  copy(id: number): Float32Array | undefined {
    const row = this.rowOf.get(id);
    if (row === undefined) return undefined;
    return this.data.slice(row * this.stride, row * this.stride + this.width);
  }

  /** Sets the vector of `id` (a positive 32-bit integer); while any is held, every vector has the first's length. */
  set(id: number, vector: Float32Array): void {
    if (!Number.isInteger(id) || id < 1 || id > 0xffffffff) throw new RangeError(`vector id ${id} is not valid`);
    if (this.rowOf.size === 0 && this.width !== vector.length) this.clear();
    if (this.width === 0) {
      if (vector.length === 0) throw new RangeError('a vector needs at least one dimension');
      this.width = vector.length;
      this.stride = strideOf(vector.length);
    }
    if (vector.length !== this.width) throw new RangeError(`vector of ${vector.length} dimensions among ${this.width}`);
    let row = this.rowOf.get(id);
    if (row === undefined) {
      if (this.rows === this.capacity) this.allocate(Math.max(INITIAL_ROWS, this.capacity * 2));
      row = this.rows++;
      this.ids[row] = id;
      this.rowOf.set(id, row);
    }
    const offset = row * this.stride;
    this.data.set(vector, offset);
    // The padding must be zero: a row reused from scratch memory may hold anything there (NaN × 0 is NaN).
    this.data.fill(0, offset + this.width, offset + this.stride);
  }

  /** Removes the vector of `id`, if any. */
  delete(id: number): void {
    const row = this.rowOf.get(id);
    if (row === undefined) return;
    this.rowOf.delete(id);
    this.ids[row] = 0;
    this.dead += 1;
    if (this.dead >= MIN_DEAD_TO_COMPACT && this.dead > this.rowOf.size) this.compact();
  }

  /**
   * Compares `query` (a unit vector of `dimensions` length) with every row: the `limit` most similar
   * with a positive similarity (ties to the higher id: the later indexed, as the text ranking breaks
   * them), and the mean and spread of all the similarities.
   */
  scan(query: Float32Array, limit: number): MatrixScan {
    if (query.length !== this.width) throw new RangeError(`query of ${query.length} dimensions among ${this.width}`);
    const { ids, rows, out, wasm } = this;
    this.query.fill(0);
    this.query.set(query);
    if (wasm === undefined) dotsInJs(this.query, this.data, rows, this.stride, out);
    else wasm.dots(this.query.byteOffset, this.data.byteOffset, rows, this.stride, out.byteOffset);
    const nearest = new NearestRows(limit);
    // What a newcomer must beat (the worst kept, once `limit` are): most rows stop at this test.
    let floor = limit < 1 ? Infinity : 0;
    let floorId = 0;
    let sum = 0;
    let squares = 0;
    for (let row = 0; row < rows; row++) {
      const id = ids[row] as number;
      if (id === 0) continue;
      const similarity = out[row] as number;
      sum += similarity;
      squares += similarity * similarity;
      if (similarity > floor || (similarity === floor && similarity > 0 && id > floorId)) {
        nearest.offer(id, similarity);
        if (nearest.full) [floor, floorId] = nearest.worst;
      }
    }
    const count = this.rowOf.size;
    const mean = count === 0 ? 0 : sum / count;
    const spread = count === 0 ? 0 : Math.sqrt(Math.max(0, squares / count - mean * mean));
    const similarity = (id: number): number | undefined => {
      const row = this.rowOf.get(id);
      return row === undefined ? undefined : (out[row] as number);
    };
    return { nearest: nearest.sorted(), count, mean, spread, similarity };
  }

  /** Room for `capacity` rows: in WebAssembly memory when large enough and the kernel runs here. */
  private allocate(capacity: number): void {
    const { stride } = this;
    const rowBytes = capacity * stride * 4;
    const total = rowBytes + stride * 4 + capacity * 4;
    const large = rowBytes >= WASM_MIN_BYTES && total <= WASM_MAX_BYTES;
    const kernel = large && this.options.simd !== false ? dotKernel() : undefined;
    const kept = this.data.subarray(0, this.rows * stride);
    if (kernel === undefined) {
      const data = new Float32Array(capacity * stride);
      data.set(kept);
      this.data = data;
      this.query = new Float32Array(stride);
      this.out = new Float32Array(capacity);
      this.wasm = undefined;
    } else {
      // Rows from address 0, then the query, then the similarities: growing keeps the rows in place.
      const pages = Math.ceil(total / WASM_PAGE);
      if (this.wasm === undefined) {
        this.wasm = kernelMemory(kernel, pages);
        new Float32Array(this.wasm.memory.buffer, 0, kept.length).set(kept);
      } else {
        this.wasm.memory.grow(pages - this.wasm.memory.buffer.byteLength / WASM_PAGE);
      }
      const buffer = this.wasm.memory.buffer;
      this.data = new Float32Array(buffer, 0, capacity * stride);
      this.query = new Float32Array(buffer, rowBytes, stride);
      this.out = new Float32Array(buffer, rowBytes + stride * 4, capacity);
    }
    const ids = new Uint32Array(capacity);
    ids.set(this.ids.subarray(0, this.rows));
    this.ids = ids;
    this.capacity = capacity;
  }

  /** Moves the live rows down over the dead ones, keeping their order. */
  private compact(): void {
    const { data, ids, stride } = this;
    let next = 0;
    for (let row = 0; row < this.rows; row++) {
      const id = ids[row] as number;
      if (id === 0) continue;
      if (row !== next) {
        data.copyWithin(next * stride, row * stride, (row + 1) * stride);
        ids[next] = id;
        this.rowOf.set(id, next);
      }
      next += 1;
    }
    ids.fill(0, next, this.rows);
    this.rows = next;
    this.dead = 0;
  }
}
