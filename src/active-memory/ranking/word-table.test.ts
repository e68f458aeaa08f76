import { describe, expect, it } from 'vitest';
import { WordTable, hashWord } from './word-table.js';

describe('WordTable', () => {
  it('finds a word by its span in a longer text, and keeps every word across growth', () => {
    const table = new WordTable();
    const words = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}x`);
    for (const [i, word] of words.entries()) expect(table.insert(word, hashWord(word), i * 2, i % 8)).toBe(i);
    expect(table.size).toBe(5_000);
    const text = `say ${words[4_321]} now`;
    const entry = table.find(text, 4, 4 + (words[4_321] as string).length, hashWord(words[4_321] as string));
    expect(entry).toBe(4_321);
    expect(table.values[entry]).toBe(8_642);
    expect(table.flags[entry]).toBe(4_321 % 8);
    for (const [i, word] of words.entries()) expect(table.find(word, 0, word.length, hashWord(word))).toBe(i);
    expect(table.find('absent', 0, 6, hashWord('absent'))).toBe(-1);
    // Same hash, other word: compared by its characters, not only its hash.
    expect(table.find('zz', 0, 2, hashWord(words[0] as string))).toBe(-1);
    expect(table.valueOf(words[17] as string)).toBe(34);
    expect(table.valueOf('absent')).toBeUndefined();
    expect(table.held[17]).toBe(words[17]);
  });
});
