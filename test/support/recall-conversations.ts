/**
 * Seeded synthetic long conversations with planted facts, for measuring and testing recall without
 * any real data: two people chat over many weekly sessions of small talk, and a few turns carry
 * facts that questions ask about. The questions are made hard the ways real ones are:
 * - word forms: the question uses another form of the fact's words ("volunteered" → "volunteer");
 * - answer turns: the fact is the reply to a question and shares no word with the question asked
 *   later ("What did you call him?" → "Pepper, after my grandpa's dog");
 * - time: "When did…" (the fact turn says "yesterday"), or "in <month>" with the same activity in
 *   another month as a decoy;
 * - two facts: the question names one fact's subject and its answer is in another turn;
 * - other words: "kids" asked, "children" said;
 * - decoys: every session has turns sharing words with some question, and every fact has a hard
 *   decoy, said by its owner in another session with as many of the question's words (a
 *   relative's hobby, a plan for next year).
 * The same seed always gives the same conversations.
 * @module
 */
import { seededRandom } from './seeded-random.js';

/** One turn of a synthetic conversation. */
export interface SyntheticTurn {
  readonly id: string;
  readonly speaker: string;
  readonly text: string;
  /** ISO timestamp: the session's date, a minute per turn. */
  readonly timestamp: string;
}

/** A question about the planted facts, and the turn ids that answer it. */
export interface SyntheticQuestion {
  readonly question: string;
  readonly kind: 'word-forms' | 'answer-turn' | 'time' | 'two-facts';
  readonly evidence: readonly string[];
}

/** One synthetic conversation. */
export interface SyntheticConversation {
  readonly sessions: ReadonlyArray<readonly SyntheticTurn[]>;
  readonly questions: readonly SyntheticQuestion[];
}

const PEOPLE = ['Ana', 'Ben', 'Chloe', 'Dev', 'Elif', 'Femi', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Luis'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October'];
const FILLER = [
  'Hey! How have you been lately?',
  'Good to hear from you, things have been busy here.',
  'Work has been hectic but I am managing.',
  'That sounds really nice, I am glad for you.',
  'Haha, that is so true.',
  'I have been trying to get more sleep, it helps a lot.',
  'The weather has been strange this week.',
  'I watched a documentary about oceans, it was fascinating.',
  'My neighbour is renovating again, so noisy!',
  'Thanks for asking, I really appreciate it.',
  'We should catch up in person soon.',
  'I cooked pasta for dinner and it turned out great.',
  'Honestly I just needed a quiet evening at home.',
  'That reminds me, I need to call my parents.',
  'I started reading a novel about a lighthouse keeper.',
  'Traffic was terrible on the way back.',
  'I am so proud of you, keep going!',
  'It has been a long week, but a good one.',
  'I tried a new coffee place downtown, pretty good.',
  'Talk soon, take care!',
  'What have you been up to this weekend?',
  'Any plans for the holidays?',
  'My team finished a big project at work.',
  'I found an old photo album while cleaning.',
];

interface Fact {
  /** Turns to plant, in order, by the fact's owner (o) or the other person (x). */
  readonly turns: ReadonlyArray<readonly ['o' | 'x', string]>;
  /** Index of the evidence turn in `turns`. */
  readonly evidence: number;
  readonly question: string;
  readonly kind: SyntheticQuestion['kind'];
  /** Turns elsewhere in the conversation that share the question's words but do not answer it. */
  readonly decoys: readonly string[];
  /**
   * A harder decoy: said by the fact's owner in another session, sharing as many of the question's
   * words as the fact does (a relative's hobby, a plan, another place), so only reading the fact,
   * its neighbours or its time tells them apart.
   */
  readonly hard: string;
}

type FactMaker = (owner: string, other: string, month: string) => Fact;

const FACTS: readonly FactMaker[] = [
  (o) => ({
    turns: [['o', 'I volunteered at the animal shelter again, walking the older dogs.']],
    evidence: 0,
    question: `Where does ${o} volunteer?`,
    hard: 'My cousin asked me to volunteer at her school fair, but I said no.',
    kind: 'word-forms',
    decoys: ['Does the shelter near you take volunteers?', 'Volunteering sounds rewarding, I should try it.'],
  }),
  (o) => ({
    turns: [['o', 'I have been painting watercolours of mountains every evening.']],
    evidence: 0,
    question: `What does ${o} paint?`,
    hard: 'My brother paints too, mostly portraits, he paints every single day.',
    kind: 'word-forms',
    decoys: ['Do you still paint? I remember your paintings.', 'The painters are finally done with our hallway.'],
  }),
  (o) => ({
    turns: [['o', 'Finally finished knitting the scarves for my nieces.']],
    evidence: 0,
    question: `What did ${o} knit?`,
    hard: 'My aunt knitted me a hat once, I still wear what she knit.',
    kind: 'word-forms',
    decoys: ['My grandma used to knit me socks.', 'Knitting looks relaxing but I have no patience.'],
  }),
  (o) => ({
    turns: [
      ['o', 'We adopted a kitten from the rescue centre!'],
      ['x', 'Aww! What did you name the kitten?'],
      ['o', 'Pepper, after my grandpa’s old cat.'],
    ],
    evidence: 2,
    question: `What is the name of ${o}'s kitten?`,
    hard: "The name tag on the kitten's collar fell off, I need a new one.",
    kind: 'answer-turn',
    decoys: ['The rescue centre near us is always full.', 'Kittens are adorable but so much work!'],
  }),
  (o) => ({
    turns: [
      ['x', 'How long have you and your partner been married?'],
      ['o', 'Seven years this spring, time flies.'],
    ],
    evidence: 1,
    question: `How long has ${o} been married?`,
    hard: 'My parents have been married for forty years, can you imagine?',
    kind: 'answer-turn',
    decoys: ['My cousin got married last summer, lovely wedding.', 'How long has it been since we last talked?'],
  }),
  (o) => ({
    turns: [
      ['x', 'Which instrument are you learning at the music school?'],
      ['o', 'The cello! My teacher is very patient with me.'],
    ],
    evidence: 1,
    question: `What instrument is ${o} learning?`,
    hard: 'My nephew is learning an instrument too, the trumpet, so loud.',
    kind: 'answer-turn',
    decoys: ['I wish I had learned an instrument as a kid.', 'Learning new things keeps the mind young.'],
  }),
  (o) => ({
    turns: [['o', 'I ran my first half marathon yesterday, my legs are sore!']],
    evidence: 0,
    question: `When did ${o} run a half marathon?`,
    hard: 'Next year I want to run a full marathon, not just a half.',
    kind: 'time',
    decoys: ['I want to run a half marathon someday.', 'The marathon closed half the streets downtown.'],
  }),
  (o) => ({
    turns: [['o', 'Last weekend I went to a pottery workshop with my cousin.']],
    evidence: 0,
    question: `When did ${o} go to a pottery workshop?`,
    hard: 'My cousin wants to go to another pottery workshop next month.',
    kind: 'time',
    decoys: ['I would love to try a pottery class sometime.', 'The workshop at work was boring.'],
  }),
  (o, _x, month) => ({
    turns: [['o', 'Went camping by the lake with my brothers, we caught so many fish.']],
    evidence: 0,
    question: `Where did ${o} go camping in ${month}?`,
    hard: 'We should go camping somewhere new, maybe the mountains.',
    kind: 'time',
    decoys: ['I have never been camping, is it fun?', 'Camping gear is so expensive now.'],
  }),
  (o) => ({
    turns: [
      ['o', 'My sister Mira got a new job, she is so excited.'],
      ['o', 'Mira is moving to Lisbon for it next month.'],
    ],
    evidence: 1,
    question: `Which city is ${o}'s sister moving to?`,
    hard: 'My sister is moving her furniture into storage this week, so much work.',
    kind: 'two-facts',
    decoys: ['My sister called, she says hi.', 'Lisbon is on my travel list, have you been?'],
  }),
  (o) => ({
    turns: [
      ['o', 'My best friend Tomas just opened a bakery.'],
      ['o', 'Tomas makes the best cardamom buns, people queue for them.'],
    ],
    evidence: 1,
    question: `What does ${o}'s best friend bake?`,
    hard: 'My best friend hates to bake, she buys every cake she serves.',
    kind: 'two-facts',
    decoys: ['I tried to bake bread once, it was a disaster.', 'My best friend from school visited me.'],
  }),
  (o) => ({
    turns: [['o', 'Took my children to the aquarium on Saturday, they loved the sharks.']],
    evidence: 0,
    question: `Where did ${o} take the kids?`,
    kind: 'word-forms',
    hard: 'I take the train to work now, it is quicker than driving.',
    decoys: ['The kids next door are so loud.', 'Where do you take visitors in town?'],
  }),
];

/** A decoy of a fact: the same activity in another session and month, so that only the named month tells them apart. */
const CAMPING_DECOY = 'Camping was fun again, the forest was quiet and cold.';

/** `count` conversations of `sessions` sessions of about `turnsPerSession` turns each, from `seed`. */
export function syntheticConversations(
  seed: number,
  count = 4,
  sessions = 16,
  turnsPerSession = 24,
): SyntheticConversation[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: count }, (_, conversation) => {
    const a = pick(PEOPLE);
    const b = pick(PEOPLE.filter((name) => name !== a));
    // Facts, each in its own session, never the first: each conversation plants every fact once.
    const order = FACTS.map((_, index) => index).sort(() => random() - 0.5);
    const slots = new Map<number, number>();
    order.forEach((fact, index) => slots.set(1 + ((index * 7) % (sessions - 1)), fact));
    const start = Date.UTC(2023, 0, 4 + conversation, 18, 0);
    const built: SyntheticTurn[][] = [];
    const decoys = new Map<number, [string, string]>();
    // Each fact's hard decoy, by its owner, three sessions on (wrapping round): before or after the fact.
    const hardDecoys = new Map<number, [FactMaker, 'a' | 'b']>();
    for (const [session, fact] of slots)
      hardDecoys.set((session + 3) % sessions, [FACTS[fact] as FactMaker, random() < 0.5 ? 'a' : 'b']);
    const owners = new Map<FactMaker, string>();
    const questions: SyntheticQuestion[] = [];
    for (let session = 0; session < sessions; session++) {
      const date = start + session * 14 * 86_400_000;
      const month = MONTHS[new Date(date).getUTCMonth()] as string;
      const turns: SyntheticTurn[] = [];
      const say = (speaker: string, text: string): string => {
        const id = `c${conversation}-s${session}-t${turns.length}`;
        turns.push({
          id,
          speaker,
          text: `${speaker}: ${text}`,
          timestamp: new Date(date + turns.length * 60_000).toISOString(),
        });
        return id;
      };
      const factIndex = slots.get(session);
      // Decoys of two random facts in every session.
      const decoyTexts = [pick(FACTS), pick(FACTS)].map((maker) => pick(maker(a, b, month).decoys));
      const plantAt = Math.floor(random() * (turnsPerSession - 4)) + 2;
      for (let turn = 0; turn < turnsPerSession; turn++) {
        if (turn === plantAt && factIndex !== undefined) {
          const owner = random() < 0.5 ? a : b;
          const other = owner === a ? b : a;
          owners.set(FACTS[factIndex] as FactMaker, owner);
          const fact = (FACTS[factIndex] as FactMaker)(owner, other, month);
          const ids = fact.turns.map(([who, text]) => say(who === 'o' ? owner : other, text));
          questions.push({ question: fact.question, kind: fact.kind, evidence: [ids[fact.evidence] as string] });
          if (fact.kind === 'time' && fact.question.includes(' in ')) {
            // The decoy goes two sessions on (another month, as sessions are two weeks apart).
            decoys.set(session + 2, [owner, CAMPING_DECOY]);
          }
        }
        if (turn === 5 || turn === 15) say(turn === 5 ? a : b, decoyTexts[turn === 5 ? 0 : 1] as string);
        const hardDecoy = hardDecoys.get(session);
        if (hardDecoy !== undefined && turn === 10) {
          // By the fact's owner once it was planted (a decoy before the fact: a coin decides who).
          const [maker, coin] = hardDecoy;
          say(owners.get(maker) ?? (coin === 'a' ? a : b), maker(a, b, month).hard);
        }
        const decoy = decoys.get(session);
        if (decoy !== undefined && turn === 1) say(decoy[0], decoy[1]);
        say(turn % 2 === 0 ? a : b, pick(FILLER));
      }
      built.push(turns);
    }
    return { sessions: built, questions };
  });
}
