/**
 * fast-check generators of realistic histories: leading system prompts, context messages,
 * mid-conversation system messages, multi-part content, and tool exchanges with parallel calls
 * whose results arrive in any order. Every generated history is valid as chatstate defines it.
 */
import fc from 'fast-check';
import { Message } from '../../src/message/message.js';
import type { ContentPart } from '../../src/message/schema.js';

const word = fc.constantFrom(
  'alpha',
  'beta',
  'the',
  'cat',
  'JSON',
  'réseau',
  '数据',
  'fn()',
  '{"a":1}',
  '42',
  'emoji🙂',
  'line\nbreak',
);
export const textArb = fc.array(word, { minLength: 1, maxLength: 12 }).map((words) => words.join(' '));

const imageArb = fc.constantFrom<ContentPart>(
  { type: 'image', url: 'https://example.test/cat.png' },
  { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png', detail: 'low' },
);

export const userContentArb = fc.oneof(
  textArb,
  fc
    .tuple(textArb, fc.option(imageArb, { nil: undefined }), fc.option(textArb, { nil: undefined }))
    .map(([text, image, more]) => {
      const parts: ContentPart[] = [{ type: 'text', text }];
      if (image !== undefined) parts.push(image);
      if (more !== undefined) parts.push({ type: 'text', text: more });
      return parts;
    }),
);

const argsArb = fc.dictionary(
  fc.constantFrom('path', 'query', 'limit', 'city'),
  fc.oneof(fc.string({ maxLength: 12 }), fc.integer()),
  {
    maxKeys: 3,
  },
);

/** One tool round: parallel calls, then their results in a random order. */
const toolRoundArb = fc.record({
  text: fc.option(textArb, { nil: undefined }),
  calls: fc.array(
    fc.record({ name: fc.constantFrom('read_file', 'search', 'weather', 'glob'), args: argsArb, output: textArb }),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
  order: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
});

const turnArb = fc.record({
  user: userContentArb,
  context: fc.option(textArb, { nil: undefined, freq: 5 }),
  midSystem: fc.option(textArb, { nil: undefined, freq: 8 }),
  rounds: fc.array(toolRoundArb, { maxLength: 3 }),
  answer: textArb,
});

export interface HistoryOptions {
  /** Most turns. @default 8 */
  maxTurns?: number;
}

/** A valid history of whole turns, oldest first. */
export function historyArb(options: HistoryOptions = {}): fc.Arbitrary<Message[]> {
  return fc
    .record({
      system: fc.option(textArb, { nil: undefined, freq: 3 }),
      preamble: fc.option(textArb, { nil: undefined, freq: 4 }),
      turns: fc.array(turnArb, { minLength: 1, maxLength: options.maxTurns ?? 8 }),
    })
    .map(({ system, preamble, turns }) => {
      let n = 0;
      const id = (): string => `m${(n += 1)}`;
      const messages: Message[] = [];
      if (system !== undefined) messages.push(Message.system(system, { id: id() }));
      if (preamble !== undefined) messages.push(Message.context(preamble, { id: id() }));
      for (const turn of turns) {
        if (turn.context !== undefined) messages.push(Message.context(turn.context, { id: id() }));
        messages.push(Message.user(turn.user, { id: id() }));
        if (turn.midSystem !== undefined) messages.push(Message.system(turn.midSystem, { id: id() }));
        for (const round of turn.rounds) {
          const calls = round.calls.map((call) => ({
            id: `call_${id()}`,
            name: call.name,
            arguments: call.args,
            output: call.output,
          }));
          messages.push(
            Message.assistant(round.text ?? '', {
              id: id(),
              toolCalls: calls.map(({ id: callId, name, arguments: args }) => ({ id: callId, name, arguments: args })),
            }),
          );
          const pending = calls.slice();
          let k = 0;
          while (pending.length > 0) {
            const pick = (round.order[k] ?? 0) % pending.length;
            const [call] = pending.splice(pick, 1);
            k += 1;
            if (call !== undefined) messages.push(Message.tool(call.id, call.output, { id: id(), name: call.name }));
          }
        }
        messages.push(Message.assistant(turn.answer, { id: id() }));
      }
      return messages;
    });
}
