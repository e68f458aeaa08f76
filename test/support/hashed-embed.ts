/**
 * The deterministic embedding the recall tests (and the fusion lab, `bench/fusion-lab.ts`) give as
 * the caller's collaborator: a hashed bag of words, with a few synonyms folded together.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Embed } from '../../src/active-memory/types.js';

/** Dimensions of `hashedEmbed`'s vectors. */
export const EMBED_DIMENSIONS = 64;

// Words the test embedding treats as one meaning: what a real embedding model does and a text index cannot.
const SYNONYMS: Readonly<Record<string, string>> = {
  canine: 'dog',
  puppy: 'dog',
  hound: 'dog',
  automobile: 'car',
  vehicle: 'car',
};

/**
 * A deterministic embedding: hashed bag of words, with a few synonyms folded together, so that
 * "canine" lands near "dog". `calls` records every batch.
 */
export function hashedEmbed(): Embed & { calls: string[][] } {
  const calls: string[][] = [];
  const embed = async (texts: readonly string[]): Promise<number[][]> => {
    calls.push([...texts]);
    return texts.map((text) => {
      const vector = new Array<number>(EMBED_DIMENSIONS).fill(0);
      for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        const word = SYNONYMS[raw] ?? raw;
        const digest = createHash('sha256').update(word).digest();
        const slot = (digest[0] as number) % EMBED_DIMENSIONS;
        vector[slot] = (vector[slot] as number) + ((digest[1] as number) % 2 === 0 ? 1 : -1);
      }
      return vector;
    });
  };
  return Object.assign(embed, { calls });
}
