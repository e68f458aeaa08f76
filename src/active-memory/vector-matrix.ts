/**
 * `VectorMatrix`: one owner's message vectors in one contiguous block of float32 rows, so that a
 * recall compares the query with every message in one tight pass (a Map of objects each with its
 * own array cost 50 ms a recall at 100k messages of 64 dimensions; this, about 1 ms). Rows are
 * appended as vectors are set; a removed row is marked dead and the dead are squeezed out once they
 * outnumber the live.
 *
 * A small matrix is scanned by a JavaScript loop over the float32 rows. From `WASM_MIN_BYTES` on,
 * each row also has an int8 copy (its values over the row's largest, times 127) in WebAssembly
 * memory, scanned by the kernel below with 128-bit SIMD, 16 dimensions an instruction group: at
 * 100k rows of 64 dimensions about 0.5 ms, against 3 ms for a float32 SIMD kernel (bound by
 * reading 25 MB) and 10–14 ms for the JavaScript loop, on the bench machine. The int8 similarities
 * are within a bound of the exact ones (`QuantizedRows.scan`): they give the mean and spread, and
 * every row that the bound leaves among the nearest is scored again from its float32 row, so the
 * nearest rows and every similarity reported are exact. Small owners stay in JavaScript because a
 * WebAssembly memory takes at least a 64 KiB page each; where WebAssembly SIMD is unavailable (an
 * old engine, `--jitless`), every size uses the loop.
 * @module
 */

// --- The kernel ---

/*
 * Written by hand (no toolchain for 240 bytes), from this text; pointers and `stride` are in bytes
 * (`stride` a multiple of 16, the codes zero-padded to it, the query as int16 likewise).
 *
 *   (module
 *     (memory (import "m" "memory") 1)
 *     ;; out[r] = f32(Σ query[i] × row r[i]) × scale[r], for `count` rows of int8 codes
 *     (func (export "dots") (param $query i32) (param $row i32) (param $count i32) (param $stride i32)
 *           (param $out i32) (param $scale i32) (local $i i32) (local $q i32) (local $acc v128) (local $v v128)
 *       (block (br_if 0 (i32.eqz (local.get $count)))
 *         (loop
 *           (local.set $acc (v128.const i32x4 0 0 0 0))
 *           (local.set $i (i32.const 0))
 *           (local.set $q (local.get $query))
 *           (loop ;; 16 dimensions a turn: widen the int8 codes to int16, multiply-add pairs into int32
 *             (local.set $v (v128.load (i32.add (local.get $row) (local.get $i))))
 *             (local.set $acc (i32x4.add (local.get $acc)
 *               (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $q)))))
 *             (local.set $acc (i32x4.add (local.get $acc)
 *               (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $q)))))
 *             (local.set $q (i32.add (local.get $q) (i32.const 32)))
 *             (br_if 0 (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $stride))))
 *           (f32.store (local.get $out) (f32.mul
 *             (f32.convert_i32_s (i32.add (i32.add (i32.add
 *               (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
 *               (i32x4.extract_lane 2 (local.get $acc))) (i32x4.extract_lane 3 (local.get $acc))))
 *             (f32.load (local.get $scale))))
 *           (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *           (local.set $scale (i32.add (local.get $scale) (i32.const 4)))
 *           (local.set $row (i32.add (local.get $row) (local.get $stride)))
 *           (br_if 0 (local.tee $count (i32.sub (local.get $count) (i32.const 1))))))))
 */

/** The signature of the kernel's function (see above). */
type Dots = (query: number, row: number, count: number, stride: number, out: number, scale: number) => void;

// prettier-ignore
const BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // '\0asm', version 1
  0x01, 0x0a, 0x01, 0x60, 0x06, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, // type section: (i32 × 6) -> ()
  0x02, 0x0d, 0x01, 0x01, 0x6d, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x01, // import section: memory "m" "memory", at least 1 page
  0x03, 0x02, 0x01, 0x00, // function section: one function, of type 0
  0x07, 0x08, 0x01, 0x04, 0x64, 0x6f, 0x74, 0x73, 0x00, 0x00, // export section: "dots" is function 0
  0x0a, 0xbc, 0x01, 0x01, 0xb9, 0x01, // code section: one body of 185 bytes
  0x02, 0x02, 0x7f, 0x02, 0x7b, // locals: $i $q i32, $acc $v v128
  0x02, 0x40, // block
  0x20, 0x02, 0x45, 0x0d, 0x00, // local.get $count; i32.eqz; br_if 0 (no rows)
  0x03, 0x40, // loop (rows)
  0xfd, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x08, // v128.const 0; local.set $acc
  0x41, 0x00, 0x21, 0x06, // i32.const 0; local.set $i
  0x20, 0x00, 0x21, 0x07, // local.get $query; local.set $q
  0x03, 0x40, // loop (16 dimensions a turn)
  0x20, 0x01, 0x20, 0x06, 0x6a, 0xfd, 0x00, 0x04, 0x00, 0x21, 0x09, // local.get $row; local.get $i; i32.add; v128.load offset=0; local.set $v
  0x20, 0x08, 0x20, 0x09, 0xfd, 0x87, 0x01, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x00, 0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01, 0x21, 0x08, // local.get $acc; local.get $v; i16x8.extend_low_i8x16_s; local.get $q; v128.load offset=0; i32x4.dot_i16x8_s; i32x4.add; local.set $acc
  0x20, 0x08, 0x20, 0x09, 0xfd, 0x88, 0x01, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x10, 0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01, 0x21, 0x08, // local.get $acc; local.get $v; i16x8.extend_high_i8x16_s; local.get $q; v128.load offset=16; i32x4.dot_i16x8_s; i32x4.add; local.set $acc
  0x20, 0x07, 0x41, 0x20, 0x6a, 0x21, 0x07, // local.get $q; i32.const 32; i32.add; local.set $q
  0x20, 0x06, 0x41, 0x10, 0x6a, 0x22, 0x06, 0x20, 0x03, 0x49, 0x0d, 0x00, // local.get $i; i32.const 16; i32.add; local.tee $i; local.get $stride; i32.lt_u; br_if 0 (next 16 dimensions)
  0x0b, // end
  0x20, 0x04, 0x20, 0x08, 0xfd, 0x1b, 0x00, 0x20, 0x08, 0xfd, 0x1b, 0x01, 0x6a, 0x20, 0x08, 0xfd, 0x1b, 0x02, 0x6a, 0x20, 0x08, 0xfd, 0x1b, 0x03, 0x6a, 0xb2, 0x20, 0x05, 0x2a, 0x02, 0x00, 0x94, 0x38, 0x02, 0x00, // local.get $out; local.get $acc; i32x4.extract_lane 0; local.get $acc; i32x4.extract_lane 1; i32.add; local.get $acc; i32x4.extract_lane 2; i32.add; local.get $acc; i32x4.extract_lane 3; i32.add; f32.convert_i32_s; local.get $scale; f32.load; f32.mul; f32.store
  0x20, 0x04, 0x41, 0x04, 0x6a, 0x21, 0x04, // local.get $out; i32.const 4; i32.add; local.set $out
  0x20, 0x05, 0x41, 0x04, 0x6a, 0x21, 0x05, // local.get $scale; i32.const 4; i32.add; local.set $scale
  0x20, 0x01, 0x20, 0x03, 0x6a, 0x21, 0x01, // local.get $row; local.get $stride; i32.add; local.set $row
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
  /**
   * The `limit` rows most similar to the query with a positive similarity, best first, exact (with
   * int8 rows, a row whose similarity is within their error bound of zero may be left out).
   */
  readonly nearest: NearRow[];
  /** Live rows compared. */
  readonly count: number;
  /** Mean similarity over every live row (from the int8 rows when the matrix has them: within the bound). */
  readonly mean: number;
  /** Standard deviation of the similarity over every live row (likewise). */
  readonly spread: number;
  /** The exact similarity of `id` (`undefined` without a vector); valid until the matrix changes. */
  readonly similarity: (id: number) => number | undefined;
}

/** Rows allocated at first. */
const INITIAL_ROWS = 64;
/** Dead rows tolerated before a compaction (below this, squeezing saves too little to be worth it). */
const MIN_DEAD_TO_COMPACT = 1024;
/** Bytes of float32 rows from which the matrix keeps int8 rows for the kernel (1,024 rows of 64 dimensions). */
export const WASM_MIN_BYTES = 256 * 1024;
/** Most bytes a WebAssembly memory holds here (its addresses are 32-bit); beyond, the JavaScript loop. */
const WASM_MAX_BYTES = 2 ** 31;
/** Largest int8 code: a row's largest value in magnitude. */
const CODE_MAX = 127;

/** `out[r]` = dot(query, row r) for the first `count` rows of `width` floats. */
function dotsInJs(query: Float32Array, data: Float32Array, count: number, width: number, out: Float32Array): void {
  let row = 0;
  // Four rows at once: each query value is read once for four products, and four sums run independently.
  for (; row + 4 <= count; row += 4) {
    const o0 = row * width;
    const o1 = o0 + width;
    const o2 = o1 + width;
    const o3 = o2 + width;
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let i = 0; i < width; i++) {
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
  for (; row < count; row++) out[row] = dotAt(query, data, row * width);
}

/** dot(query, the row of `data` at `offset`). */
function dotAt(query: Float32Array, data: Float32Array, offset: number): number {
  let sum = 0;
  for (let i = 0; i < query.length; i++) sum += (query[i] as number) * (data[offset + i] as number);
  return sum;
}

/**
 * The int8 copy of a matrix's rows in WebAssembly memory, laid out as codes (`capacity` rows of
 * `stride` bytes, from address 0), row scales (float32), the int16 query, then the kernel's results.
 */
class QuantizedRows {
  private codes = new Int8Array(0);
  private scales = new Float32Array(0);
  private query = new Int16Array(0);
  private out = new Float32Array(0);
  /** The largest row scale and the largest row's sum of magnitudes held (they only grow: the error bound stays safe after deletes). */
  private maxScale = 0;
  private maxNorm1 = 0;

  private constructor(
    private readonly memory: WasmMemory,
    private readonly dots: Dots,
    private readonly width: number,
    private readonly stride: number,
    private capacity: number,
  ) {
    this.layout();
  }

  /** Bytes of memory `capacity` rows of `stride` bytes need. */
  static bytes(stride: number, capacity: number): number {
    return capacity * stride + capacity * 4 + stride * 2 + capacity * 4;
  }

  /** Int8 rows for `capacity` rows of `width` dimensions, or `undefined` where the kernel cannot run. */
  static create(width: number, capacity: number): QuantizedRows | undefined {
    const kernel = dotKernel();
    if (kernel === undefined) return undefined;
    const stride = Math.ceil(width / 16) * 16;
    const { memory, dots } = kernelMemory(kernel, Math.ceil(QuantizedRows.bytes(stride, capacity) / WASM_PAGE));
    return new QuantizedRows(memory, dots, width, stride, capacity);
  }

  private layout(): void {
    const { buffer } = this.memory;
    const { capacity, stride } = this;
    this.codes = new Int8Array(buffer, 0, capacity * stride);
    this.scales = new Float32Array(buffer, capacity * stride, capacity);
    this.query = new Int16Array(buffer, capacity * stride + capacity * 4, stride);
    this.out = new Float32Array(buffer, capacity * stride + capacity * 4 + stride * 2, capacity);
  }

  /** Room for `capacity` rows, the first `rows` kept (the codes stay in place; the scales move up). */
  grow(capacity: number, rows: number): void {
    const from = this.capacity * this.stride;
    const pages = Math.ceil(QuantizedRows.bytes(this.stride, capacity) / WASM_PAGE);
    this.memory.grow(Math.max(0, pages - this.memory.buffer.byteLength / WASM_PAGE));
    new Uint8Array(this.memory.buffer).copyWithin(capacity * this.stride, from, from + rows * 4);
    this.capacity = capacity;
    this.layout();
  }

  /** Codes row `row` from `vector`: each value over the largest in magnitude, times 127, rounded. */
  set(row: number, vector: Float32Array, offset = 0): void {
    let largest = 0;
    let norm1 = 0;
    for (let i = 0; i < this.width; i++) {
      const magnitude = Math.abs(vector[offset + i] as number);
      largest = Math.max(largest, magnitude);
      norm1 += magnitude;
    }
    const scale = largest / CODE_MAX;
    const start = row * this.stride;
    for (let i = 0; i < this.width; i++)
      this.codes[start + i] = scale === 0 ? 0 : Math.round((vector[offset + i] as number) / scale);
    this.codes.fill(0, start + this.width, start + this.stride);
    this.scales[row] = scale;
    this.maxScale = Math.max(this.maxScale, scale);
    this.maxNorm1 = Math.max(this.maxNorm1, norm1);
  }

  /** Copies row `from` over row `to`. */
  move(from: number, to: number): void {
    this.codes.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
    this.scales[to] = this.scales[from] as number;
  }

  /**
   * The similarities of the first `rows` rows to `query`, each `out[r] × step`, and `error`: a bound
   * on how far any of them is from the exact one. With q' and v' the coded query and row (each value
   * off by at most half its step), |q·v − q'·v'| ≤ Σ|q|·|v − v'| + Σ|v'|·|q − q'|
   * ≤ ‖q‖₁·scale/2 + step/2·(‖v‖₁ + width·scale/2).
   */
  scan(query: Float32Array, rows: number): { out: Float32Array; step: number; error: number } {
    const { width, stride } = this;
    let largest = 0;
    let absolute = 0;
    for (let i = 0; i < width; i++) {
      const magnitude = Math.abs(query[i] as number);
      largest = Math.max(largest, magnitude);
      absolute += magnitude;
    }
    // The int32 sums cannot overflow: every code product is at most 127 × `top`, `stride` of them.
    const top = Math.min(32_767, Math.floor(0x7fffffff / (CODE_MAX * stride)));
    const step = largest / top;
    this.query.fill(0);
    if (step > 0) for (let i = 0; i < width; i++) this.query[i] = Math.round((query[i] as number) / step);
    this.dots(this.query.byteOffset, 0, rows, stride, this.out.byteOffset, this.scales.byteOffset);
    // A zero query is exactly 0 from every row.
    if (step === 0) return { out: this.out, step: 1, error: 0 };
    const { maxScale, maxNorm1 } = this;
    const coded = maxNorm1 + (width * maxScale) / 2;
    // The last term covers float32 rounding (2^-24 relative, three times) of a sum at most `largest × coded`.
    const error = (absolute * maxScale) / 2 + (step / 2) * coded + 2 ** -22 * largest * coded;
    return { out: this.out, step, error };
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
  private capacity = 0;
  /** Rows in use, live or dead. */
  private rows = 0;
  private dead = 0;
  /** Id of each row; 0 marks a dead row. */
  private ids = new Uint32Array(0);
  private readonly rowOf = new Map<number, number>();
  /** The vectors, `width` floats a row. */
  private data = new Float32Array(0);
  /** Similarities of the JavaScript loop's last scan, one per row (reused: 100k floats a recall would churn the GC). */
  private out = new Float32Array(0);
  private quantized: QuantizedRows | undefined;

  constructor(
    /** `simd: false` keeps to the JavaScript loop at any size (tests compare the two). */
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

  /** Whether the rows have int8 copies scanned by the SIMD kernel. */
  get simd(): boolean {
    return this.quantized !== undefined;
  }

  /** Forgets every vector (another vector space: their similarities are not comparable). */
  clear(): void {
    this.width = 0;
    this.capacity = 0;
    this.rows = 0;
    this.dead = 0;
    this.ids = new Uint32Array(0);
    this.rowOf.clear();
    this.data = new Float32Array(0);
    this.out = new Float32Array(0);
    this.quantized = undefined;
  }

  /** Whether `id` has a vector. */
  has(id: number): boolean {
    return this.rowOf.has(id);
  }

  /** A copy of the vector of `id` (a copy: rows move when the matrix grows or is compacted). */
  copy(id: number): Float32Array | undefined {
    const row = this.rowOf.get(id);
    return row === undefined ? undefined : this.data.slice(row * this.width, (row + 1) * this.width);
  }

  /** Sets the vector of `id` (a positive 32-bit integer); while any is held, every vector has the first's length. */
  set(id: number, vector: Float32Array): void {
    if (!Number.isInteger(id) || id < 1 || id > 0xffffffff) throw new RangeError(`vector id ${id} is not valid`);
    if (this.rowOf.size === 0 && this.width !== vector.length) this.clear();
    if (this.width === 0) {
      if (vector.length === 0) throw new RangeError('a vector needs at least one dimension');
      this.width = vector.length;
    }
    if (vector.length !== this.width) throw new RangeError(`vector of ${vector.length} dimensions among ${this.width}`);
    let row = this.rowOf.get(id);
    if (row === undefined) {
      if (this.rows === this.capacity) this.allocate(Math.max(INITIAL_ROWS, this.capacity * 2));
      row = this.rows++;
      this.ids[row] = id;
      this.rowOf.set(id, row);
    }
    this.data.set(vector, row * this.width);
    this.quantized?.set(row, vector);
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
    const { ids, rows, data, width } = this;
    let out: Float32Array = this.out;
    let step = 1;
    let error = 0;
    if (this.quantized === undefined) dotsInJs(query, data, rows, width, out);
    else ({ out, step, error } = this.quantized.scan(query, rows));
    // In the kernel's units (similarities over `step`): the nearest, exact from the JavaScript loop;
    // what a newcomer must beat (the worst kept, once `limit` are: most rows stop at this test); and
    // how far below it an exact one may hide, with int8 rows.
    let nearest = new NearestRows(limit);
    let floor = limit < 1 ? Infinity : 0;
    let floorId = 0;
    const margin = (2 * error) / step;
    // Positive rows within `margin` of the floor as it stood when they were read: it only rises, so
    // every positive row within `margin` of the final floor is among them (with int8 rows only).
    // Below the heap's filling, that is every positive row so far: fewer than `limit`.
    let doubtful = new Uint32Array(error > 0 ? 1024 : 0);
    let doubtfulCount = 0;
    let sum = 0;
    let squares = 0;
    for (let row = 0; row < rows; row++) {
      const id = ids[row] as number;
      if (id === 0) continue;
      const value = out[row] as number;
      sum += value;
      squares += value * value;
      if (error > 0 && value > 0 && value >= floor - margin) {
        if (doubtfulCount === doubtful.length) {
          const larger = new Uint32Array(doubtful.length * 2);
          larger.set(doubtful);
          doubtful = larger;
        }
        doubtful[doubtfulCount++] = row;
      }
      if (value > floor || (value === floor && value > 0 && id > floorId)) {
        nearest.offer(id, value);
        if (nearest.full) [floor, floorId] = nearest.worst;
      }
    }
    if (error > 0 && limit >= 1) {
      // The exact `limit` best are within twice the bound of the approximate `limit`-th: score
      // those again from their float32 rows (with fewer kept, every positive row).
      const least = nearest.full ? floor - margin : 0;
      nearest = new NearestRows(limit);
      for (let index = 0; index < doubtfulCount; index++) {
        const row = doubtful[index] as number;
        if ((out[row] as number) < least) continue;
        const similarity = dotAt(query, data, row * width);
        if (similarity > 0) nearest.offer(ids[row] as number, similarity);
      }
    }
    sum *= step;
    squares *= step * step;
    const count = this.rowOf.size;
    const mean = count === 0 ? 0 : sum / count;
    const spread = count === 0 ? 0 : Math.sqrt(Math.max(0, squares / count - mean * mean));
    const exact = error === 0 ? out : undefined;
    const similarity = (id: number): number | undefined => {
      const row = this.rowOf.get(id);
      if (row === undefined) return undefined;
      return exact === undefined ? dotAt(query, data, row * width) : (exact[row] as number) * step;
    };
    return { nearest: nearest.sorted(), count, mean, spread, similarity };
  }

  /** Room for `capacity` rows, and int8 copies once large enough (see the module comment). */
  private allocate(capacity: number): void {
    const { width, rows } = this;
    const data = new Float32Array(capacity * width);
    data.set(this.data.subarray(0, rows * width));
    this.data = data;
    const ids = new Uint32Array(capacity);
    ids.set(this.ids.subarray(0, rows));
    this.ids = ids;
    this.capacity = capacity;
    const large = capacity * width * 4 >= WASM_MIN_BYTES;
    const fits = QuantizedRows.bytes(Math.ceil(width / 16) * 16, capacity) <= WASM_MAX_BYTES;
    if (this.quantized !== undefined && fits) {
      this.quantized.grow(capacity, rows);
    } else if (large && fits && this.options.simd !== false) {
      this.quantized = QuantizedRows.create(width, capacity);
      for (let row = 0; row < rows; row++) this.quantized?.set(row, data, row * width);
    } else {
      this.quantized = undefined;
    }
    // The JavaScript loop's results; with int8 rows the kernel writes its own.
    this.out = this.quantized === undefined ? new Float32Array(capacity) : new Float32Array(0);
  }

  /** Moves the live rows down over the dead ones, keeping their order. */
  private compact(): void {
    const { data, ids, width } = this;
    let next = 0;
    for (let row = 0; row < this.rows; row++) {
      const id = ids[row] as number;
      if (id === 0) continue;
      if (row !== next) {
        data.copyWithin(next * width, row * width, (row + 1) * width);
        this.quantized?.move(row, next);
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
