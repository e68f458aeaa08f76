/**
 * Properties of the Anthropic and Gemini formats over random realistic histories:
 * - `to` always produces a history its own `validate` accepts;
 * - `from(to(x))` keeps what the provider carries, compared through `project` below;
 * - `to` is idempotent through `from`: `to(from(to(x)))` deep-equals `to(x)`;
 * - an empty conversation is refused by `validate`, and `to` of a history with nothing to send
 *   (only system messages, or messages it drops whole) still writes one the API accepts, with
 *   `empty_conversation`.
 *
 * What the projection leaves out, because neither provider carries it: message ids, names,
 * timestamps, metadata and categories; image `detail`; the boundaries between consecutive messages
 * of one role (merged into one turn); and the order of tool results, which `prepareHistory` puts in
 * call order (the expectation is therefore projected from the prepared history). Mid-conversation
 * system and context messages come back as user text wrapped by `instructionText`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../../src/formats/anthropic.js';
import { gemini } from '../../src/formats/gemini.js';
import { prepareHistory } from '../../src/formats/prepare.js';
import { instructionText } from '../../src/formats/turn-rules.js';
import type { ProviderFormat } from '../../src/formats/types.js';
import { hasText } from '../../src/formats/wire-json.js';
import { Message } from '../../src/message/message.js';
import type { ContentPart } from '../../src/message/schema.js';
import { historyArb } from '../support/arbitraries.js';
import { damagedHistoryArb } from '../support/damaged-history.js';
import { nothingToSendArb } from './formats-empty-history.js';

type Item =
  | { kind: 'system'; text: string }
  | { kind: 'text'; role: 'user' | 'assistant'; text: string }
  | { kind: 'image'; source: string }
  | { kind: 'call'; id: string; name: string; args: unknown }
  | { kind: 'result'; toolCallId: string; text: string };

function partsOf(message: Message): readonly ContentPart[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function contentItems(message: Message, role: 'user' | 'assistant'): Item[] {
  return partsOf(message).flatMap((part): Item[] => {
    if (part.type === 'text') return hasText(part.text) ? [{ kind: 'text', role, text: part.text }] : [];
    if (part.type === 'image') return [{ kind: 'image', source: part.url ?? part.data ?? '' }];
    return [];
  });
}

/** A history as the items a provider carries: leading system text, then the dialog in order. */
function project(system: readonly Message[], body: readonly Message[]): Item[] {
  const items: Item[] = system.flatMap((message) =>
    partsOf(message).flatMap((part): Item[] =>
      part.type === 'text' && hasText(part.text) ? [{ kind: 'system', text: part.text }] : [],
    ),
  );
  for (const message of body) {
    switch (message.role) {
      case 'system': {
        const text = instructionText(message);
        items.push(...(hasText(text) ? [{ kind: 'text' as const, role: 'user' as const, text }] : []));
        items.push(...contentItems(message, 'user').filter((item) => item.kind !== 'text'));
        break;
      }
      case 'user':
        items.push(...contentItems(message, 'user'));
        break;
      case 'assistant':
        items.push(...contentItems(message, 'assistant'));
        for (const call of message.toolCalls ?? [])
          items.push({ kind: 'call', id: call.id, name: call.name, args: JSON.parse(call.arguments) });
        break;
      case 'tool':
        items.push({ kind: 'result', toolCallId: message.toolCallId ?? '', text: Message.text(message) });
        break;
      default: {
        const unreachable: never = message.role;
        throw new Error(String(unreachable));
      }
    }
  }
  return items;
}

function projectRead(messages: readonly Message[]): Item[] {
  let start = 0;
  while (start < messages.length && messages[start]?.role === 'system') start += 1;
  return project(messages.slice(0, start), messages.slice(start));
}

function withoutWarnings<T extends { warnings: unknown }>(wire: T): Omit<T, 'warnings'> {
  const { warnings: _warnings, ...rest } = wire;
  return rest;
}

const FORMATS: Array<[string, ProviderFormat<object>]> = [
  ['anthropic', anthropic],
  ['gemini', gemini],
];

/** The wire of an empty conversation, and where `validate` reports it. */
const EMPTY: Record<string, [object, string]> = {
  anthropic: [{ system: 'You are terse.', messages: [] }, 'messages'],
  gemini: [{ systemInstruction: { parts: [{ text: 'You are terse.' }] }, contents: [] }, 'contents'],
};

describe.each(FORMATS)('%s format properties', (name, format) => {
  it('to() output always passes validate()', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        const wire = format.to(history);
        expect(format.validate(wire)).toEqual([]);
        // The same after a JSON round trip: the output is plain data.
        expect(format.validate(JSON.parse(JSON.stringify(wire)))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('validate() refuses an empty conversation, and to() of a history with nothing to send still passes it and says so', () => {
    const [wire, path] = EMPTY[name] as [object, string];
    expect(format.validate(wire)).toEqual([expect.objectContaining({ code: 'empty_conversation', path })]);
    fc.assert(
      fc.property(nothingToSendArb(name as 'anthropic' | 'gemini', true), (history) => {
        const written = format.to(history);
        expect(format.validate(written)).toEqual([]);
        expect(written.warnings.map((warning) => warning.code)).toContain('empty_conversation');
        // Written again from what it reads back, it is the same request.
        expect(withoutWarnings(format.to(format.from(written).messages))).toEqual(withoutWarnings(written));
      }),
      { numRuns: 100 },
    );
  });

  it('from(to(x)) keeps what the provider carries', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        const prepared = prepareHistory(history);
        const read = format.from(format.to(history));
        expect(read.warnings).toEqual([]);
        expect(projectRead(read.messages)).toEqual(project(prepared.system, prepared.body));
      }),
      { numRuns: 200 },
    );
  });

  it('to() output passes validate() and is idempotent even for damaged histories', () => {
    fc.assert(
      fc.property(damagedHistoryArb, (history) => {
        const first = format.to(history);
        expect(format.validate(first)).toEqual([]);
        expect(withoutWarnings(format.to(format.from(first).messages))).toEqual(withoutWarnings(first));
      }),
      { numRuns: 300 },
    );
  });

  it('to(from(to(x))) equals to(x)', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        const first = format.to(history);
        const second = format.to(format.from(first).messages);
        expect(withoutWarnings(second)).toEqual(withoutWarnings(first));
        expect(second.warnings).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
