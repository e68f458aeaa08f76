/**
 * Properties of the Anthropic and Gemini formats over random realistic histories:
 * - `to` always produces a history its own `validate` accepts;
 * - `from(to(x))` keeps what the provider carries, compared through `project` below;
 * - `to` is idempotent through `from`: `to(from(to(x)))` deep-equals `to(x)`.
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
    partsOf(message).flatMap((part): Item[] => (part.type === 'text' && hasText(part.text) ? [{ kind: 'system', text: part.text }] : [])),
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
        for (const call of message.toolCalls ?? []) items.push({ kind: 'call', id: call.id, name: call.name, args: JSON.parse(call.arguments) });
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

// Parts and damage the realistic generator never produces: foreign reasoning and raw parts, files a
// provider may not read, blank text, a history cut before its first user turn, lost results, and
// arguments that are not JSON. `to` must still produce a history the provider accepts.
const extraPartArb = fc.constantFrom<ContentPart>(
  { type: 'reasoning', text: 'hmm', provider: 'anthropic', signature: 'sig' },
  { type: 'reasoning', text: 'hmm', provider: 'gemini', signature: 'gsig' },
  { type: 'reasoning', text: 'hmm', provider: 'openaiResponses' },
  { type: 'raw', provider: 'anthropic', value: { type: 'redacted_thinking', data: 'x' } },
  { type: 'raw', provider: 'anthropic', value: { type: 'tool_use', id: 'x', name: 'y', input: {} } },
  { type: 'raw', provider: 'gemini', value: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
  { type: 'raw', provider: 'gemini', value: { functionCall: { name: 'y', args: {} } } },
  { type: 'raw', provider: 'openaiChat', value: { refusal: 'no' } },
  { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
  { type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain' },
  { type: 'file', data: 'UEsDBA==', mediaType: 'application/zip' },
  { type: 'image', data: 'AAAA' },
  { type: 'text', text: '   ' },
);

const editArb = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('part', 'part', 'part', 'dropMessage', 'cutToAssistant', 'badArguments'),
  part: extraPartArb,
});

function applyEdit(history: Message[], edit: { at: number; kind: string; part: ContentPart }): Message[] {
  const index = edit.at % Math.max(history.length, 1);
  const target = history[index];
  if (target === undefined) return history;
  switch (edit.kind) {
    case 'part':
      return history.map((message, i) => (i === index ? Message.with(message, { content: [...partsOf(message), edit.part] }) : message));
    case 'dropMessage':
      return history.filter((_, i) => i !== index);
    case 'cutToAssistant': {
      const first = history.findIndex((message) => message.role === 'assistant');
      return first < 0 ? history : [...history.filter((message, i) => i < first && message.role === 'system'), ...history.slice(first)];
    }
    default: {
      const [call, ...rest] = target.toolCalls ?? [];
      if (call === undefined) return history;
      const broken = Message.with(target, { toolCalls: [{ ...call, arguments: '{oops' }, ...rest] });
      return history.map((message, i) => (i === index ? broken : message));
    }
  }
}

const damagedHistoryArb = fc
  .tuple(historyArb({ maxTurns: 4 }), fc.array(editArb, { maxLength: 6 }))
  .map(([history, edits]) => edits.reduce(applyEdit, history));

const FORMATS: Array<[string, ProviderFormat<object>]> = [
  ['anthropic', anthropic],
  ['gemini', gemini],
];

describe.each(FORMATS)('%s format properties', (_name, format) => {
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
