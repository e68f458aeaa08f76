/**
 * Embeddings for recall: calling the caller's `embed` safely, unit vectors, and the compact form
 * they are stored in beside a session's messages (base64 little-endian Float32, a chunk of
 * consecutive messages per stored value, with the message ids to notice a rewritten session).
 * @module
 */
import { endianness } from 'node:os';
import { CollaboratorError, errorMessage } from '../errors.js';
import type { JsonValue } from '../message/schema.js';
import type { Embed } from './types.js';

/** Texts per `embed` call while indexing. */
export const EMBED_BATCH = 128;
/** Characters of a message sent to `embed` (embedding models have input limits; the start carries the topic). */
export const EMBED_MAX_CHARS = 8_000;
/** Bytes of vector data in one stored chunk, well under the 1 MiB a value may hold. */
const CHUNK_BYTES = 384 * 1024;
/** Most messages in one stored chunk. */
const CHUNK_MESSAGES = 256;
const LITTLE_ENDIAN = endianness() === 'LE';

function embedFailed(message: string, cause?: unknown): CollaboratorError {
  // An embedding model is a model: its failures share the model-failure code.
  return new CollaboratorError('MODEL_FAILED', `embed: ${message}`, { cause, details: { collaborator: 'embed' } });
}

/** `vector` scaled to length 1 (a zero vector stays zero), as Float32. */
export function unitVector(vector: ArrayLike<number>): Float32Array {
  const unit = new Float32Array(vector.length);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) * (vector[i] as number);
  norm = Math.sqrt(norm);
  if (norm === 0) return unit;
  for (let i = 0; i < vector.length; i++) unit[i] = (vector[i] as number) / norm;
  return unit;
}

/** Cosine similarity of two unit vectors of one length. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

/**
 * Calls `embed` on `texts` and checks what it returns: one vector per text, every one of length
 * `dimensions` (the first one's when not given) and finite numbers only. Throws `MODEL_FAILED`.
 */
export async function embedTexts(embed: Embed, texts: readonly string[], dimensions?: number): Promise<Float32Array[]> {
  let vectors: ReadonlyArray<ArrayLike<number>>;
  try {
    vectors = await embed(texts.map((text) => (text.length > EMBED_MAX_CHARS ? text.slice(0, EMBED_MAX_CHARS) : text)));
  } catch (error) {
    throw embedFailed(errorMessage(error), error);
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw embedFailed(
      `returned ${Array.isArray(vectors) ? vectors.length : typeof vectors} vectors for ${texts.length} texts`,
    );
  }
  const expected = dimensions ?? (vectors[0] as ArrayLike<number> | undefined)?.length;
  return vectors.map((vector: ArrayLike<number> | undefined, index) => {
    const length = vector?.length;
    if (typeof length !== 'number' || length < 1 || length !== expected) {
      throw embedFailed(`vector ${index} has ${String(length)} dimensions, expected ${String(expected)}`);
    }
    for (let i = 0; i < length; i++) {
      if (!Number.isFinite(vector?.[i])) throw embedFailed(`vector ${index} holds a value that is not a finite number`);
    }
    return unitVector(vector as ArrayLike<number>);
  });
}

/** The stored-value key prefix of `embedId`'s vectors of `dimensions` dimensions. */
export function chunkPrefix(embedId: string, dimensions: number): string {
  return `embed/${embedId}/${dimensions}/`;
}

/** A stored chunk: consecutive messages of one session and their vectors. */
export interface VectorChunk {
  readonly key: string;
  readonly seqs: readonly number[];
  readonly ids: readonly string[];
  readonly vectors: readonly Float32Array[];
}

function encodeFloats(vectors: readonly Float32Array[], dimensions: number): string {
  const bytes = Buffer.alloc(vectors.length * dimensions * 4);
  vectors.forEach((vector, row) => {
    if (LITTLE_ENDIAN) Buffer.from(vector.buffer, vector.byteOffset, dimensions * 4).copy(bytes, row * dimensions * 4);
    else for (let i = 0; i < dimensions; i++) bytes.writeFloatLE(vector[i] as number, (row * dimensions + i) * 4);
  });
  return bytes.toString('base64');
}

/** Splits `entries` (ascending by seq) into stored chunks of at most ~384 KiB each. */
export function encodeChunks(
  prefix: string,
  dimensions: number,
  entries: ReadonlyArray<{ readonly seq: number; readonly id: string; readonly vector: Float32Array }>,
): Record<string, JsonValue> {
  const perChunk = Math.max(1, Math.min(CHUNK_MESSAGES, Math.floor(CHUNK_BYTES / (dimensions * 4))));
  const values: Record<string, JsonValue> = {};
  for (let start = 0; start < entries.length; start += perChunk) {
    const slice = entries.slice(start, start + perChunk);
    const first = slice[0]?.seq ?? 0;
    const last = slice.at(-1)?.seq ?? 0;
    values[`${prefix}${first}-${last}`] = {
      v: 1,
      dimensions,
      seqs: slice.map((entry) => entry.seq),
      ids: slice.map((entry) => entry.id),
      data: encodeFloats(
        slice.map((entry) => entry.vector),
        dimensions,
      ),
    };
  }
  return values;
}

/** Reads one stored chunk; `undefined` for anything malformed (it is recomputed rather than trusted). */
export function decodeChunk(key: string, value: JsonValue, dimensions: number): VectorChunk | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { v, seqs, ids, data } = value as Record<string, JsonValue>;
  if (
    v !== 1 ||
    (value as Record<string, JsonValue>).dimensions !== dimensions ||
    !Array.isArray(seqs) ||
    !Array.isArray(ids) ||
    typeof data !== 'string'
  )
    return undefined;
  if (
    seqs.length !== ids.length ||
    !seqs.every((seq) => Number.isSafeInteger(seq)) ||
    !ids.every((id) => typeof id === 'string')
  )
    return undefined;
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length !== seqs.length * dimensions * 4) return undefined;
  const floats = new Float32Array(seqs.length * dimensions);
  // One aligned copy on little-endian hosts (all common ones); value by value elsewhere.
  if (LITTLE_ENDIAN) new Uint8Array(floats.buffer).set(bytes);
  else for (let i = 0; i < floats.length; i++) floats[i] = bytes.readFloatLE(i * 4);
  const vectors: Float32Array[] = [];
  for (let row = 0; row < seqs.length; row++) vectors.push(floats.subarray(row * dimensions, (row + 1) * dimensions));
  return { key, seqs: seqs as number[], ids: ids as string[], vectors };
}
