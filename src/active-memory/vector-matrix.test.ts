import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VectorMatrix, WASM_MIN_BYTES, simdAvailable } from './vector-matrix.js';
import { unitVector } from './vectors.js';
import { seededRandom } from '../../test/support/seeded-random.js';

/** A deterministic unit vector of `dimensions` for `seed`. */
function vectorOf(seed: number, dimensions: number): Float32Array {
  return unitVector(Array.from({ length: dimensions }, (_, i) => Math.sin(seed * 12.9898 + i * 78.233)));
}

/** What a scan must return, computed the plain way from the vectors held. */
function reference(held: ReadonlyMap<number, Float32Array>, query: Float32Array, limit: number) {
  const all = [...held].map(([id, vector]) => {
    let similarity = 0;
    for (let i = 0; i < query.length; i++) similarity += (query[i] as number) * (vector[i] as number);
    return { id, similarity };
  });
  const mean = all.reduce((sum, row) => sum + row.similarity, 0) / all.length;
  const spread = Math.sqrt(all.reduce((sum, row) => sum + (row.similarity - mean) ** 2, 0) / all.length);
  const nearest = all
    .filter((row) => row.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || b.id - a.id)
    .slice(0, limit);
  return { all, mean, spread, nearest };
}

/**
 * Checks a scan of `matrix` against `reference`: the similarities and the nearest exactly (float32
 * rounding apart); the mean and spread so too from the float32 rows, to 0.005 from the int8 ones.
 */
function expectScan(matrix: VectorMatrix, held: ReadonlyMap<number, Float32Array>, query: Float32Array, limit: number) {
  const scan = matrix.scan(query, limit);
  const expected = reference(held, query, limit);
  expect(scan.count).toBe(held.size);
  expect(scan.mean).toBeCloseTo(expected.mean, matrix.simd ? 2 : 5);
  expect(scan.spread).toBeCloseTo(expected.spread, matrix.simd ? 2 : 5);
  for (const { id, similarity } of expected.all) expect(scan.similarity(id)).toBeCloseTo(similarity, 5);
  expect(scan.similarity(0)).toBeUndefined();
  // The same rows but for near-ties, which float32 sums may order either way.
  expect(scan.nearest.length).toBe(expected.nearest.length);
  scan.nearest.forEach((row, index) => {
    expect(row.similarity).toBeCloseTo((expected.nearest[index] as { similarity: number }).similarity, 5);
    expect(row.similarity).toBeCloseTo(scan.similarity(row.id) as number, 6);
  });
}

describe('VectorMatrix', () => {
  it('scans what a plain loop over the vectors finds, through sets, overwrites and deletes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 60 }), fc.integer()), { maxLength: 120 }),
        fc.integer({ min: 1, max: 20 }),
        (dimensions, operations, limit) => {
          const matrix = new VectorMatrix();
          const held = new Map<number, Float32Array>();
          for (const [remove, id, seed] of operations) {
            if (remove) {
              matrix.delete(id);
              held.delete(id);
            } else {
              const vector = vectorOf(seed, dimensions);
              matrix.set(id, vector);
              held.set(id, vector);
            }
          }
          expect(matrix.size).toBe(held.size);
          for (const [id, vector] of held) expect(matrix.copy(id)).toEqual(vector);
          if (held.size > 0) expectScan(matrix, held, vectorOf(-1, dimensions), limit);
        },
      ),
    );
  });

  it('moves into WebAssembly memory when large, and scans alike there and in the JavaScript loop', () => {
    const dimensions = 100; // padded to 112: the kernel must not read the padding as data
    const rows = Math.ceil(WASM_MIN_BYTES / (112 * 4)) + 1;
    const simd = new VectorMatrix();
    const plain = new VectorMatrix({ simd: false });
    const held = new Map<number, Float32Array>();
    for (let id = 1; id <= rows; id++) {
      const vector = vectorOf(id, dimensions);
      simd.set(id, vector);
      plain.set(id, vector);
      held.set(id, vector);
    }
    expect(simd.simd).toBe(simdAvailable());
    // Node 20, which the package requires, runs it: the fast path is the one tested.
    expect(simdAvailable()).toBe(true);
    expect(plain.simd).toBe(false);
    const query = vectorOf(0.5, dimensions);
    expectScan(simd, held, query, 50);
    expectScan(plain, held, query, 50);
    const ids = (matrix: VectorMatrix): number[] => matrix.scan(query, 50).nearest.map((row) => row.id);
    expect(ids(simd)).toEqual(ids(plain));
  });

  it('finds the exact nearest from the int8 rows, even among near-duplicates their codes cannot tell apart', () => {
    const dimensions = 64;
    const rows = Math.ceil(WASM_MIN_BYTES / (dimensions * 4)) * 2;
    const matrix = new VectorMatrix();
    const held = new Map<number, Float32Array>();
    const base = vectorOf(3, dimensions);
    for (let id = 1; id <= rows; id++) {
      // Within a code step or two of one another: the int8 similarities tie or misorder them.
      const vector = unitVector(Array.from(base, (value, i) => value + 0.002 * Math.sin(id * 7.1 + i * 3.3)));
      matrix.set(id, vector);
      held.set(id, vector);
    }
    expect(matrix.simd).toBe(simdAvailable());
    const query = unitVector(Array.from(base, (value, i) => value + 0.01 * Math.cos(i)));
    const expected = reference(held, query, 25);
    expect(matrix.scan(query, 25).nearest).toEqual(expected.nearest);
  });

  it('rescores every row the int8 error bound leaves in doubt, where rounding errs the most', () => {
    // Every value but the largest sits just off half a code step, so rounding moves each by almost
    // half a step, up or down by a hair's sign: the int8 order is the count of values rounded up,
    // unrelated to the exact order that the hairs make.
    const dimensions = 16;
    const random = seededRandom(11);
    const matrix = new VectorMatrix();
    const held = new Map<number, Float32Array>();
    for (let id = 1; id <= 4096; id++) {
      const raw = Array.from({ length: dimensions }, (_, i) => (i === 0 ? 127 : 40 + i + 0.5 + (random() - 0.5) / 50));
      const vector = unitVector(raw);
      matrix.set(id, vector);
      held.set(id, vector);
    }
    expect(matrix.simd).toBe(simdAvailable());
    const query = unitVector(Array.from({ length: dimensions }, (_, i) => (i === 0 ? 0 : 1)));
    expect(matrix.scan(query, 10).nearest).toEqual(reference(held, query, 10).nearest);
  });

  it('squeezes out deleted rows once they outnumber the live ones, keeping every vector', () => {
    const dimensions = 64;
    const matrix = new VectorMatrix();
    const held = new Map<number, Float32Array>();
    for (let id = 1; id <= 3000; id++) {
      const vector = vectorOf(id, dimensions);
      matrix.set(id, vector);
      held.set(id, vector);
    }
    for (let id = 1; id <= 3000; id++) {
      if (id % 3 === 0) continue;
      matrix.delete(id);
      held.delete(id);
    }
    expect(matrix.size).toBe(1000);
    expectScan(matrix, held, vectorOf(7, dimensions), 30);
    // Rows set after the compaction land after the kept ones and are found too.
    for (let id = 5000; id < 5100; id++) {
      const vector = vectorOf(id, dimensions);
      matrix.set(id, vector);
      held.set(id, vector);
    }
    for (const [id, vector] of held) expect(matrix.copy(id)).toEqual(vector);
    expectScan(matrix, held, vectorOf(8, dimensions), 30);
  });

  it('breaks ties to the higher id, keeps only positive similarities, and honours the limit', () => {
    const matrix = new VectorMatrix();
    const same = unitVector([1, 1, 0]);
    for (const id of [4, 9, 2, 7]) matrix.set(id, same);
    matrix.set(5, unitVector([-1, 0, 0]));
    matrix.set(6, unitVector([0, 0, 1]));
    const query = unitVector([1, 0, 0]);
    expect(matrix.scan(query, 3).nearest.map((row) => row.id)).toEqual([9, 7, 4]);
    expect(matrix.scan(query, 10).nearest.map((row) => row.id)).toEqual([9, 7, 4, 2]);
    expect(matrix.scan(query, 0).nearest).toEqual([]);
  });

  it('holds one dimension count at a time, and forgets everything on clear', () => {
    const matrix = new VectorMatrix();
    matrix.set(1, unitVector([1, 0]));
    expect(() => matrix.set(2, unitVector([1, 0, 0]))).toThrow(RangeError);
    expect(() => matrix.scan(unitVector([1, 0, 0]), 5)).toThrow(RangeError);
    expect(() => matrix.set(0, unitVector([1, 0]))).toThrow(RangeError);
    // Once empty, the next vector sets the dimension count again.
    matrix.delete(1);
    matrix.set(2, unitVector([0, 1, 0]));
    expect(matrix.dimensions).toBe(3);
    matrix.clear();
    expect(matrix.size).toBe(0);
    expect(matrix.has(2)).toBe(false);
    matrix.set(3, unitVector([1, 2, 3, 4]));
    expect(matrix.scan(unitVector([1, 2, 3, 4]), 1).nearest[0]?.similarity).toBeCloseTo(1, 6);
  });
});
