/**
 * Histories the realistic generator never produces: parts of every provider in every role (raw
 * parts, signed and unsigned reasoning), media without a media type or in roles that cannot carry
 * it, blank text, lost messages (orphan results, calls without results), a history cut before its
 * first user turn, and tool arguments that are not JSON. A format's `to` must still write
 * something its provider accepts.
 */
import fc from 'fast-check';
import { Message } from '../../src/message/message.js';
import type { ContentPart } from '../../src/message/schema.js';
import { historyArb } from './arbitraries.js';

const extraPartArb = fc.constantFrom<ContentPart>(
  { type: 'reasoning', text: 'hmm', provider: 'anthropic', signature: 'sig' },
  { type: 'reasoning', text: 'hmm', provider: 'gemini', signature: 'gsig' },
  { type: 'reasoning', text: 'hmm' },
  { type: 'reasoning', text: 'hmm', provider: 'openaiResponses' },
  { type: 'raw', provider: 'anthropic', value: { type: 'redacted_thinking', data: 'x' } },
  { type: 'raw', provider: 'anthropic', value: { type: 'tool_use', id: 'x', name: 'y', input: {} } },
  { type: 'raw', provider: 'gemini', value: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
  { type: 'raw', provider: 'gemini', value: { functionCall: { name: 'y', args: {} } } },
  { type: 'raw', provider: 'openaiChat', value: { refusal: 'no' } },
  {
    type: 'raw',
    provider: 'openaiChat',
    value: { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
  },
  { type: 'raw', provider: 'openaiChat', value: { type: 'refusal', refusal: 'no' } },
  {
    type: 'raw',
    provider: 'openaiResponses',
    value: { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAA' },
  },
  {
    type: 'raw',
    provider: 'openaiResponses',
    value: { type: 'input_image', detail: 'original', image_url: 'https://example.test/a.png' },
  },
  { type: 'raw', provider: 'openaiResponses', value: { type: 'web_search_call', id: 'ws_1', status: 'completed' } },
  { type: 'raw', provider: 'aiSdk', value: { type: 'tool-approval-request', approvalId: 'ap', toolCallId: 'x' } },
  { type: 'raw', provider: 'aiSdk', value: { type: 'custom', providerOptions: { x: { y: 1 } } } },
  { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
  { type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain' },
  { type: 'file', data: 'UEsDBA==', mediaType: 'application/zip' },
  { type: 'file', fileId: 'file-1', mediaType: 'application/pdf' },
  { type: 'file', url: 'https://example.test/a.pdf', mediaType: 'application/pdf' },
  { type: 'image', data: 'AAAA' },
  { type: 'image', url: 'data:image/gif;base64,R0lGODlh', detail: 'high' },
  { type: 'text', text: '   ' },
);

const editArb = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('part', 'part', 'part', 'dropMessage', 'cutToAssistant', 'badArguments'),
  part: extraPartArb,
});

function partsOf(message: Message): ContentPart[] {
  return typeof message.content === 'string'
    ? message.content.length > 0
      ? [{ type: 'text', text: message.content }]
      : []
    : [...message.content];
}

function applyEdit(history: Message[], edit: { at: number; kind: string; part: ContentPart }): Message[] {
  const index = edit.at % Math.max(history.length, 1);
  const target = history[index];
  if (target === undefined) return history;
  switch (edit.kind) {
    case 'part':
      return history.map((message, i) =>
        i === index ? Message.with(message, { content: [...partsOf(message), edit.part] }) : message,
      );
    case 'dropMessage':
      return history.filter((_, i) => i !== index);
    case 'cutToAssistant': {
      const first = history.findIndex((message) => message.role === 'assistant');
      return first < 0
        ? history
        : [...history.filter((message, i) => i < first && message.role === 'system'), ...history.slice(first)];
    }
    default: {
      const [call, ...rest] = target.toolCalls ?? [];
      if (call === undefined) return history;
      const broken = Message.with(target, { toolCalls: [{ ...call, arguments: '{oops' }, ...rest] });
      return history.map((message, i) => (i === index ? broken : message));
    }
  }
}

/** A realistic history with up to six damaging edits applied. */
export const damagedHistoryArb: fc.Arbitrary<Message[]> = fc
  .tuple(historyArb({ maxTurns: 4 }), fc.array(editArb, { maxLength: 6 }))
  .map(([history, edits]) => edits.reduce(applyEdit, history));
