/** Embedding helpers: the checks on what `embed` returns, unit vectors, and the stored chunk format. */
import { describe, expect, it } from 'vitest';
import {
  chunkPrefix,
  cosine,
  decodeChunk,
  embedTexts,
  encodeChunks,
  unitVector,
  EMBED_MAX_CHARS,
} from '../../src/active-memory/vectors.js';
import { CollaboratorError } from '../../src/errors.js';
import type { JsonValue } from '../../src/message/schema.js';
import { expectRejection } from './harness.js';

describe('vectors', () => {
  it('scales to unit length and measures cosine similarity', () => {
    const a = unitVector([3, 4]);
    expect([...a].map((x) => Number(x.toFixed(6)))).toEqual([0.6, 0.8]);
    expect(cosine(a, unitVector([6, 8]))).toBeCloseTo(1, 6);
    expect(cosine(a, unitVector([-4, 3]))).toBeCloseTo(0, 6);
    expect([...unitVector([0, 0])]).toEqual([0, 0]);
  });

  it('round-trips chunks of vectors through their stored form, split to stay small', () => {
    const dimensions = 1536;
    const entries = Array.from({ length: 70 }, (_, index) => ({
      seq: index + 1,
      id: `m${index}`,
      vector: unitVector(Array.from({ length: dimensions }, (_, i) => Math.sin(index + i))),
    }));
    const prefix = chunkPrefix('model-a', dimensions);
    const values = encodeChunks(prefix, dimensions, entries);
    const keys = Object.keys(values);
    expect(keys.length).toBe(2);
    expect(keys[0]).toBe(`${prefix}1-64`);
    for (const value of Object.values(values))
      expect(Buffer.byteLength(JSON.stringify(value))).toBeLessThan(600 * 1024);
    const decoded = keys.flatMap((key) => {
      const chunk = decodeChunk(key, values[key] as JsonValue, dimensions);
      return chunk === undefined
        ? []
        : chunk.seqs.map((seq, index) => ({ seq, id: chunk.ids[index], vector: chunk.vectors[index] }));
    });
    expect(decoded).toEqual(entries);
  });

  it('ignores stored chunks that are malformed or of another size', () => {
    const values = encodeChunks('p/', 2, [{ seq: 1, id: 'm1', vector: unitVector([1, 1]) }]);
    const [key, value] = Object.entries(values)[0] as [string, JsonValue];
    expect(decodeChunk(key, value, 3)).toBeUndefined();
    for (const broken of [
      null,
      'text',
      [1],
      { ...(value as object), v: 2 },
      { ...(value as object), data: 'AAAA' },
      { ...(value as object), seqs: ['1'] },
    ]) {
      expect(decodeChunk(key, broken as JsonValue, 2)).toBeUndefined();
    }
  });

  it('checks what embed returns and truncates very long texts', async () => {
    const seen: string[] = [];
    const vectors = await embedTexts(
      async (texts) => (seen.push(...texts), texts.map(() => new Float64Array([1, 0]))),
      ['short', 'x'.repeat(EMBED_MAX_CHARS + 10)],
    );
    expect(vectors).toHaveLength(2);
    expect(seen[1]).toHaveLength(EMBED_MAX_CHARS);
    await expectRejection(
      embedTexts(async () => 'nope' as unknown as number[][], ['a']),
      CollaboratorError,
      'MODEL_FAILED',
    );
    await expectRejection(
      embedTexts(async () => [[]], ['a']),
      CollaboratorError,
      'MODEL_FAILED',
    );
    await expectRejection(
      embedTexts(async () => [[1, 2]], ['a'], 3),
      CollaboratorError,
      'MODEL_FAILED',
    );
    await expectRejection(
      embedTexts(async () => [[1, Infinity]], ['a']),
      CollaboratorError,
      'MODEL_FAILED',
    );
  });
});
