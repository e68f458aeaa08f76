/**
 * The benchmark corpus: deterministic, realistic agent histories. A leading system prompt, then
 * turns of user → assistant [tool calls → results]* → assistant, with English prose, markdown
 * answers with fenced TypeScript/Python, JSON tool arguments and JSON tool outputs (about one
 * message in five is a tool result). The same `(n, seed)` always gives the same history.
 * @module
 */
import { Message } from '../src/message/message.js';
import {
  CONTENT_KINDS,
  assistantAnswer,
  list,
  paragraph,
  userMessage,
  type ContentKind,
  type Segment,
} from './corpus-text.js';
import { preamble, toolCall, toolCallId } from './corpus-tools.js';
import { Random } from './random.js';

/** Texts of a corpus grouped by content kind (a message's text may span several kinds). */
export type TextsByKind = Record<ContentKind, string[]>;

/** A generated history and the raw texts it is made of. */
export interface Corpus {
  readonly messages: Message[];
  readonly texts: TextsByKind;
}

/** Seed of the corpus every figure in bench/RESULTS.md is measured on. */
export const REPORT_SEED = 2025;
/** Seed of the corpus the estimate's weights were fitted on (a different one, so the report is not the fit). */
export const TUNING_SEED = 7;

// Probability that a turn uses tools; with the round/call counts below, ~20% of messages are tool results.
const TOOL_TURN = 0.3;
const START = Date.UTC(2025, 0, 1);

class Builder {
  readonly messages: Message[] = [];
  readonly texts: TextsByKind = { prose: [], code: [], jsonArgs: [], jsonOutputs: [] };

  constructor(
    readonly random: Random,
    private readonly seed: number,
    private readonly keepTexts: boolean,
  ) {}

  /** The extras every message gets: a deterministic id and timestamp. */
  private extras(): { id: string; timestamp: string } {
    const index = this.messages.length;
    return { id: `s${this.seed}-${index}`, timestamp: new Date(START + index * 7000).toISOString() };
  }

  private join(segments: readonly Segment[]): string {
    let text = '';
    for (const segment of segments) {
      text += segment.text;
      if (this.keepTexts) this.texts[segment.kind].push(segment.text);
    }
    return text;
  }

  system(): void {
    const text = this.join([
      {
        kind: 'prose',
        text: `You are a careful coding assistant. ${paragraph(this.random, 3, 5)}\n\n## Rules\n\n${list(this.random)}\n\n${paragraph(this.random, 1, 3)}`,
      },
    ]);
    this.messages.push(Message.system(text, this.extras()));
  }

  user(): void {
    this.messages.push(Message.user(this.join(userMessage(this.random)), this.extras()));
  }

  answer(): void {
    this.messages.push(Message.assistant(this.join(assistantAnswer(this.random)), this.extras()));
  }

  /** One round: an assistant message with `calls` parallel tool calls, then their results. */
  round(calls: number): void {
    const generated = Array.from({ length: calls }, () => ({ id: toolCallId(this.random), ...toolCall(this.random) }));
    const text = this.join(preamble(this.random));
    const toolCalls = generated.map((call) => {
      if (this.keepTexts) this.texts.jsonArgs.push(call.arguments);
      return { id: call.id, name: call.name, arguments: call.arguments };
    });
    this.messages.push(Message.assistant(text, { ...this.extras(), toolCalls }));
    for (const call of generated) {
      if (this.keepTexts) this.texts.jsonOutputs.push(call.output);
      this.messages.push(Message.tool(call.id, call.output, { ...this.extras(), name: call.name }));
    }
  }

  /** One complete turn of at most `room` messages (a shorter one when the planned turn does not fit). */
  turn(room: number): void {
    const random = this.random;
    const rounds: number[] = [];
    if (random.chance(TOOL_TURN)) {
      const count = random.weighted([
        [1, 60],
        [2, 25],
        [3, 15],
      ] as const);
      for (let i = 0; i < count; i++) {
        rounds.push(
          random.weighted([
            [1, 75],
            [2, 18],
            [3, 7],
          ] as const),
        );
      }
    }
    const size = 2 + rounds.reduce((sum, calls) => sum + 1 + calls, 0);
    if (size > room) {
      // The history must end exactly at n messages and never in the middle of a tool exchange.
      this.user();
      if (room >= 4) this.round(room - 3);
      if (room >= 2) this.answer();
      if (room === 3) this.user();
      return;
    }
    this.user();
    for (const calls of rounds) this.round(calls);
    this.answer();
  }
}

function build(n: number, seed: number, keepTexts: boolean): Corpus {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
  const builder = new Builder(new Random(seed), seed, keepTexts);
  builder.system();
  while (builder.messages.length < n) builder.turn(n - builder.messages.length);
  return { messages: builder.messages, texts: builder.texts };
}

/** A valid n-message agent history (system prompt first), the same for the same `(n, seed)`. */
export function generateHistory(n: number, seed: number): Message[] {
  return build(n, seed, false).messages;
}

/** A history plus its raw texts by content kind, for the token benches. */
export function generateCorpus(n: number, seed: number): Corpus {
  return build(n, seed, true);
}

export { CONTENT_KINDS, type ContentKind };
