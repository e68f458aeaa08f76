import { describe, expect, it } from 'vitest';
import { DEFAULT_RANKING, MAX_INDEXED_CHARS, Ranker } from './ranker.js';

const MAY = Date.UTC(2023, 4, 10);
const JUNE = Date.UTC(2023, 5, 20);

/** A ranker holding `texts` as one conversation (ids 1…n, each after the one before). */
function conversation(texts: readonly string[], timestampMs = MAY, ranker = new Ranker()): Ranker {
  texts.forEach((text, index) =>
    ranker.add(index + 1, text, { timestampMs, ...(index === 0 ? {} : { after: index }) }),
  );
  return ranker;
}

const ids = (ranker: Ranker, query: string, limit = 5): number[] =>
  ranker.search(query, limit).map((match) => match.docId);

describe('Ranker', () => {
  it('matches other forms of the query words', () => {
    const ranker = conversation(['We adopted a rescue puppy', 'The weather is nice']);
    expect(ids(ranker, 'adoption')).toEqual([1]);
  });

  it('finds an answer that shares no word with the query after the message that asks it', () => {
    const ranker = conversation([
      'I love the beach in summer',
      'How long have you been married?',
      'Five years already, time flies!',
      'Tell me about your garden',
    ]);
    // The answer even comes first: the question asks how long, and it says "years".
    expect(ids(ranker, 'How long has she been married?').slice(0, 2)).toEqual([3, 2]);
    // Without the context step, the answer is not found at all.
    const plain = conversation(
      ['How long have you been married?', 'Five years already!'],
      MAY,
      new Ranker({ ...DEFAULT_RANKING, answer: 0 }),
    );
    expect(ids(plain, 'married')).toEqual([1]);
  });

  it("ranks the same speaker's turn two messages on, which goes on with what they said, above a like one elsewhere", () => {
    const lone = "Jon: Thanks, I'm nervous but the opening will be great.";
    const rank = (speaker: number): number[] => {
      const ranker = conversation(
        ['Jon: The grand opening of my studio is tomorrow!', 'Gina: Congrats, you worked so hard for it.', lone],
        MAY,
        new Ranker({ ...DEFAULT_RANKING, session: 0, speaker }),
      );
      ranker.add(10, lone, { timestampMs: MAY });
      return ids(ranker, 'the grand opening');
    };
    expect(rank(DEFAULT_RANKING.speaker)).toEqual([1, 3, 10]);
    // Without the share, the two tie and the newer comes first.
    expect(rank(0)).toEqual([1, 10, 3]);
  });

  it('reads a misspelled, abbreviated or run-together query word as the known words it stands for', () => {
    const ranker = conversation([
      'We had a blast at the pride festival',
      'Back to edu soon',
      'The road trip was long',
      'Lunch',
    ]);
    expect(ids(ranker, 'the pride fesetival')[0]).toBe(1);
    expect(ids(ranker, 'education plans')[0]).toBe(2);
    expect(ids(ranker, 'after the roadtrip')[0]).toBe(3);
    expect(
      ids(
        conversation(['We had a blast at the festival'], MAY, new Ranker({ ...DEFAULT_RANKING, near: 0 })),
        'fesetival',
      ),
    ).toEqual([]);
  });

  it('for a question naming a month, prefers the message written in it', () => {
    const ranker = new Ranker();
    ranker.add(1, 'We went camping by the lake', { timestampMs: JUNE });
    ranker.add(2, 'We went camping by the lake again', { timestampMs: MAY });
    expect(ids(ranker, 'Where did they go camping in June?')[0]).toBe(1);
    expect(ids(ranker, 'Where did they go camping in May?')[0]).toBe(2);
  });

  it('for a question asking when, prefers a message that places the event in time', () => {
    const ranker = conversation([
      'I finished a half marathon yesterday!',
      'A half marathon is on my list, a half marathon',
    ]);
    expect(ids(ranker, 'When did she run a half marathon?')[0]).toBe(1);
    expect(ids(ranker, 'Did she run a half marathon?')[0]).toBe(2);
  });

  it('for a question asking what happened recently, prefers the message placing it in time over one saying "recently"', () => {
    const ranker = new Ranker();
    ranker.add(1, 'Ana: I love painting, and recently I started reading poetry', { timestampMs: MAY });
    ranker.add(2, 'Ana: We finished a sunset painting last weekend', { timestampMs: MAY });
    ranker.add(3, 'Ana: A painting class could be fun', { timestampMs: MAY });
    expect(ids(ranker, 'What did Ana paint recently?')[0]).toBe(2);
  });

  it('prefers the message of the author the query names', () => {
    const ranker = conversation([
      'Gina: contemporary dance is my favourite',
      'Jon: contemporary dance is my favourite',
    ]);
    expect(ids(ranker, "What is Gina's favourite dance?")[0]).toBe(1);
    expect(ids(ranker, "What is Jon's favourite dance?")[0]).toBe(2);
  });

  it('prefers the speaker a query asks about over an author it names only as an owner', () => {
    const ranker = conversation([
      'Gina: Jon, my store opened in the mall today',
      'Jon: Gina, your store looks great, all that work paid off',
    ]);
    // Both names are in the query; Gina's is an owner's, so the words asked for are Jon's.
    expect(ids(ranker, "What did Jon say about Gina's store?")[0]).toBe(2);
    // Without another name, an owner is still the author asked about.
    expect(ids(ranker, "What did Gina's store do?")[0]).toBe(1);
  });

  it('scores relative to the best, and forgets removed messages and their links', () => {
    const ranker = conversation(['What did you name the kitten?', 'Pepper, after my grandpa', 'kitten food']);
    const matches = ranker.search('kitten name', 5);
    expect(matches[0]?.score).toBe(1);
    for (const match of matches) expect(match.score).toBeGreaterThan(0);
    expect(matches.map((match) => match.docId)).toContain(2);
    ranker.remove(1);
    expect(ranker.size).toBe(2);
    expect(ids(ranker, 'kitten name')).toEqual([3]);
    expect(ids(ranker, 'submarine')).toEqual([]);
  });
});

describe('Ranker indexing', () => {
  it('indexes only the head of a long text', () => {
    const ranker = new Ranker();
    ranker.add(1, `needle ${'filler '.repeat(MAX_INDEXED_CHARS / 7)} haystack`);
    expect(ids(ranker, 'needle')).toEqual([1]);
    expect(ids(ranker, 'haystack')).toEqual([]);
  });

  it('reads "this morning" as time, and non-ASCII text as the analyzer does', () => {
    const ranker = conversation(['I fed the cat this morning', 'I fed the cat, the cat, the cat']);
    expect(ids(ranker, 'When did she feed the cat?')[0]).toBe(1);
    const unicode = conversation(['Ｃａｆé au lait in Zürich', 'Tea in Bern']);
    // Letters are not folded: "zurich" finds "Zürich" only as a near word (one edit), at a lower weight.
    const exact = conversation(
      ['Ｃａｆé au lait in Zürich', 'Tea in Bern'],
      MAY,
      new Ranker({ ...DEFAULT_RANKING, near: 0 }),
    );
    expect(ids(exact, 'cafe zurich')).toEqual([]);
    expect(ids(unicode, 'cafe zurich')).toEqual([1]);
    expect(ids(unicode, 'café zürich')).toEqual([1]);
    expect(ids(unicode, 'ZÜRICH')).toEqual([1]);
  });
});
