import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { gemini } from './gemini.js';
import type { GeminiContent, GeminiWire } from './gemini-wire.js';
import { MISSING_RESULT_TEXT } from './prepare.js';
import { FIRST_TURN_PLACEHOLDER } from './turn-rules.js';
import type { FormatWarning, WireProblem } from './types.js';

const codes = (items: ReadonlyArray<FormatWarning | WireProblem>): string[] => items.map((item) => item.code);
const PNG = 'iVBORw0KGgoAAAANSUhEUg==';

function call(id: string, name = 'search', args: string | Record<string, string> = { q: 'x' }) {
  return { id, name, arguments: args };
}

describe('gemini.to', () => {
  it('puts leading system and context messages in systemInstruction as text parts', () => {
    const wire = gemini.to([Message.system('Be brief.'), Message.context('Facts.'), Message.user('Hi')]);
    expect(wire.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Facts.' }] });
    expect(wire.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
    expect(wire.warnings).toEqual([]);
  });

  it('omits systemInstruction when there is none and drops media from it with a warning', () => {
    expect(gemini.to([Message.user('Hi')])).not.toHaveProperty('systemInstruction');
    const wire = gemini.to([
      Message.context([{ type: 'image', data: PNG, mediaType: 'image/png' }]),
      Message.user('Hi'),
    ]);
    expect(wire).not.toHaveProperty('systemInstruction');
    expect(codes(wire.warnings)).toEqual(['unsupported_part']);
  });

  it('turns mid-conversation system and context messages into tagged user text, merged', () => {
    const wire = gemini.to([
      Message.user('Hi'),
      Message.system('Now be formal.'),
      Message.context('Doc v2'),
      Message.assistant('Hello.'),
    ]);
    expect(wire.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Hi' },
          { text: '<system>\nNow be formal.\n</system>' },
          { text: '<context>\nDoc v2\n</context>' },
        ],
      },
      { role: 'model', parts: [{ text: 'Hello.' }] },
    ]);
  });

  it('writes calls as functionCall parts and results as functionResponse parts in call order, right after', () => {
    const wire = gemini.to([
      Message.user('Go'),
      Message.assistant('Looking.', { toolCalls: [call('c1'), call('c2', 'read')] }),
      Message.tool('c2', 'two', { metadata: { isError: true } }),
      Message.tool('c1', 'one'),
      Message.user('Thanks'),
    ]);
    expect(wire.contents).toEqual([
      { role: 'user', parts: [{ text: 'Go' }] },
      {
        role: 'model',
        parts: [
          { text: 'Looking.' },
          { functionCall: { id: 'c1', name: 'search', args: { q: 'x' } } },
          { functionCall: { id: 'c2', name: 'read', args: { q: 'x' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c1', name: 'search', response: { output: 'one' } } },
          { functionResponse: { id: 'c2', name: 'read', response: { error: 'two' } } },
          { text: 'Thanks' },
        ],
      },
    ]);
    expect(wire.warnings).toEqual([]);
  });

  it('answers a call without a result with an error response, and drops orphan results', () => {
    const wire = gemini.to([
      Message.user('Go'),
      Message.tool('ghost', 'boo'),
      Message.assistant('', { toolCalls: [call('c1')] }),
    ]);
    expect(codes(wire.warnings)).toEqual(['orphan_tool_result', 'missing_tool_result']);
    expect(wire.contents.at(-1)).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: 'c1', name: 'search', response: { error: MISSING_RESULT_TEXT } } }],
    });
  });

  it('parses arguments into args; blank is {}, anything else is { _raw } with a warning', () => {
    const wire = gemini.to([
      Message.user('Go'),
      Message.assistant('', { toolCalls: [call('c1', 'a', ''), call('c2', 'b', 'nope')] }),
      Message.tool('c1', 'r'),
      Message.tool('c2', 'r'),
    ]);
    expect(wire.contents[1]?.parts).toEqual([
      { functionCall: { id: 'c1', name: 'a', args: {} } },
      { functionCall: { id: 'c2', name: 'b', args: { _raw: 'nope' } } },
    ]);
    expect(codes(wire.warnings)).toEqual(['invalid_tool_arguments']);
  });

  it('sends thought signatures on calls and text back, and media in results as response parts', () => {
    const signed = { gemini: { thoughtSignature: 'sig' } };
    const wire = gemini.to([
      Message.user('Go'),
      Message.assistant([{ type: 'text', text: 'Ok', providerOptions: signed }], {
        toolCalls: [{ ...call('c1'), providerOptions: signed }],
      }),
      Message.tool('c1', [
        { type: 'text', text: 'shot' },
        { type: 'image', data: PNG, mediaType: 'image/png' },
        { type: 'reasoning', text: 'x' },
      ]),
    ]);
    expect(wire.contents[1]?.parts).toEqual([
      { text: 'Ok', thoughtSignature: 'sig' },
      { functionCall: { id: 'c1', name: 'search', args: { q: 'x' } }, thoughtSignature: 'sig' },
    ]);
    expect(wire.contents[2]?.parts).toEqual([
      {
        functionResponse: {
          id: 'c1',
          name: 'search',
          response: { output: 'shot' },
          parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }],
        },
      },
    ]);
    expect(codes(wire.warnings)).toEqual(['dropped_reasoning']);
  });

  it('merges consecutive turns and inserts a placeholder user turn before a leading model turn', () => {
    const wire = gemini.to([Message.assistant('a'), Message.assistant('b'), Message.user('c'), Message.user('d')]);
    expect(wire.contents).toEqual([
      { role: 'user', parts: [{ text: FIRST_TURN_PLACEHOLDER }] },
      { role: 'model', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'user', parts: [{ text: 'c' }, { text: 'd' }] },
    ]);
    expect(codes(wire.warnings)).toEqual(['inserted_user_turn']);
  });

  it('maps images and files to inlineData or fileData', () => {
    const wire = gemini.to([
      Message.user([
        { type: 'image', data: PNG, mediaType: 'image/png' },
        { type: 'image', data: '/9j/4AAQ' },
        { type: 'image', url: 'data:image/gif;base64,R0lGODlh' },
        { type: 'image', url: 'https://x.test/cat.JPG?v=1' },
        { type: 'image', url: 'gs://bucket/photo' },
        { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf' },
        { type: 'file', url: 'https://x.test/a.pdf', mediaType: 'application/pdf' },
        { type: 'file', fileId: 'files/abc', mediaType: 'video/mp4' },
      ]),
    ]);
    expect(wire.contents[0]?.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: PNG } },
      { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
      { inlineData: { mimeType: 'image/gif', data: 'R0lGODlh' } },
      { fileData: { fileUri: 'https://x.test/cat.JPG?v=1', mimeType: 'image/jpeg' } },
      { fileData: { fileUri: 'gs://bucket/photo' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
      { fileData: { fileUri: 'https://x.test/a.pdf', mimeType: 'application/pdf' } },
      { fileData: { fileUri: 'files/abc', mimeType: 'video/mp4' } },
    ]);
    expect(wire.warnings).toEqual([]);
  });

  it('drops inline images whose type cannot be known, and blank text, dropping empty messages', () => {
    const wire = gemini.to([
      Message.user('Hi'),
      Message.user([
        { type: 'text', text: ' ' },
        { type: 'image', data: 'AAAA' },
      ]),
    ]);
    expect(wire.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
    expect(codes(wire.warnings)).toEqual(['unsupported_part', 'empty_message']);
  });

  it('sends Gemini reasoning as thought parts and drops other reasoning', () => {
    const wire = gemini.to([
      Message.user('Go'),
      Message.assistant([
        { type: 'reasoning', text: 'Plan', provider: 'gemini', signature: 'sig' },
        {
          type: 'reasoning',
          text: 'More',
          provider: 'gemini',
          providerOptions: { gemini: { thoughtSignature: 'sig2' } },
        },
        { type: 'reasoning', text: 'Plain', provider: 'gemini' },
        { type: 'reasoning', text: 'Other', provider: 'anthropic', signature: 's' },
        { type: 'text', text: 'Done' },
      ]),
    ]);
    expect(wire.contents[1]?.parts).toEqual([
      { text: 'Plan', thought: true, thoughtSignature: 'sig' },
      { text: 'More', thought: true, thoughtSignature: 'sig2' },
      { text: 'Plain', thought: true },
      { text: 'Done' },
    ]);
    expect(codes(wire.warnings)).toEqual(['dropped_reasoning']);
  });

  it('writes raw Gemini parts verbatim and drops other providers’ raw parts', () => {
    const code = { executableCode: { language: 'PYTHON', code: 'print(1)' } };
    const wire = gemini.to([
      Message.user('Go'),
      Message.assistant([
        { type: 'raw', provider: 'gemini', value: code },
        { type: 'raw', provider: 'anthropic', value: { type: 'redacted_thinking', data: 'x' } },
        { type: 'raw', provider: 'gemini', value: { functionCall: { name: 'f', args: {} } } },
        { type: 'text', text: 'Done' },
      ]),
    ]);
    expect(wire.contents[1]?.parts).toEqual([code, { text: 'Done' }]);
    expect(codes(wire.warnings)).toEqual(['foreign_raw_part', 'unsupported_part']);
  });
});

describe('gemini.from', () => {
  it('reads calls, responses by id, thoughts, signatures and raw parts; to() writes them back unchanged', () => {
    const wire: GeminiWire = {
      systemInstruction: { parts: [{ text: 'S' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Go' },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
            { fileData: { fileUri: 'gs://b/x.png', mimeType: 'image/png' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'Plan', thought: true, thoughtSignature: 'sig' },
            { executableCode: { language: 'PYTHON', code: 'print(1)' } } as unknown as GeminiContent['parts'][number],
            { text: 'Calling', thoughtSignature: 'sig2' },
            { functionCall: { id: 'c1', name: 'search', args: { q: 1 } }, thoughtSignature: 'sig3' },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'c1',
                name: 'search',
                response: { error: 'bad' },
                parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }],
              },
            },
            { text: 'Thanks' },
          ],
        },
      ],
    };
    const read = gemini.from(wire);
    expect(read.warnings).toEqual([]);
    expect(read.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(read.messages[2]).toMatchObject({
      content: [
        { type: 'reasoning', text: 'Plan', provider: 'gemini', signature: 'sig' },
        { type: 'raw', provider: 'gemini', value: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
        { type: 'text', text: 'Calling', providerOptions: { gemini: { thoughtSignature: 'sig2' } } },
      ],
      toolCalls: [
        { id: 'c1', name: 'search', arguments: '{"q":1}', providerOptions: { gemini: { thoughtSignature: 'sig3' } } },
      ],
    });
    expect(read.messages[3]).toMatchObject({
      toolCallId: 'c1',
      name: 'search',
      metadata: { isError: true },
      content: [
        { type: 'text', text: 'bad' },
        { type: 'image', data: PNG, mediaType: 'image/png' },
      ],
    });
    const again = gemini.to(read.messages);
    expect({ systemInstruction: again.systemInstruction, contents: again.contents }).toEqual(wire);
    expect(again.warnings).toEqual([]);
  });

  it('gives id-less calls new ids and pairs id-less responses by name', () => {
    const read = gemini.from({
      contents: [
        { role: 'user', parts: [{ text: 'Go' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'b', response: { result: 2 } } },
            { functionResponse: { name: 'a', response: { output: '1' } } },
          ],
        },
      ],
    });
    const [, model, first, second] = read.messages;
    const ids = model?.toolCalls?.map((toolCall) => toolCall.id) ?? [];
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(first).toMatchObject({ toolCallId: ids[1], name: 'b', content: '{"result":2}' });
    expect(second).toMatchObject({ toolCallId: ids[0], name: 'a', content: '1' });
    expect(gemini.validate(gemini.to(read.messages))).toEqual([]);
  });

  it('skips what it cannot read, with warnings, and does not freeze the caller’s wire', () => {
    const raw = { codeExecutionResult: { outcome: 'OUTCOME_OK' } };
    const read = gemini.from({
      contents: [
        null,
        { role: 'system', parts: [] },
        { role: 'user', parts: [7, { text: 'ok' }] },
        { role: 'user', parts: [{ text: '' }] },
        { role: 'model', parts: [{ text: ' ' }] },
        { role: 'model', parts: [raw] },
      ] as unknown as GeminiContent[],
    });
    expect(codes(read.warnings)).toEqual([
      'invalid_message',
      'invalid_message',
      'invalid_part',
      'empty_message',
      'empty_message',
    ]);
    expect(read.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(Object.isFrozen(raw)).toBe(false);
  });
});

describe('gemini.validate', () => {
  const user = (...parts: unknown[]): unknown => ({ role: 'user', parts });
  const model = (...parts: unknown[]): unknown => ({ role: 'model', parts });
  const fc = (name: string, id?: string): unknown => ({
    functionCall: { name, args: {}, ...(id === undefined ? {} : { id }) },
  });
  const fr = (name: string, id?: string): unknown => ({
    functionResponse: { name, response: { output: 'r' }, ...(id === undefined ? {} : { id }) },
  });
  const check = (contents: unknown[], systemInstruction?: unknown): WireProblem[] =>
    gemini.validate({ systemInstruction, contents });

  it('accepts a well-formed exchange, matching by id or else by name', () => {
    expect(
      check(
        [user({ text: 'Hi' }), model(fc('a', '1'), fc('a', '2')), user(fr('a', '2'), fr('a', '1'), { text: 'more' })],
        { parts: [{ text: 'S' }] },
      ),
    ).toEqual([]);
    expect(check([user({ text: 'Hi' }), model(fc('a'), fc('b')), user(fr('b'), fr('a'))])).toEqual([]);
  });

  it('never throws on garbage', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('boom');
        },
        get() {
          throw new Error('boom');
        },
      },
    );
    for (const garbage of [null, undefined, 1, 'x', [], { contents: {} }, { contents: [hostile] }, hostile]) {
      expect(() => gemini.validate(garbage)).not.toThrow();
      expect(gemini.validate(garbage).length).toBeGreaterThan(0);
    }
    expect(codes(gemini.validate('x'))).toEqual(['invalid_wire']);
    expect(gemini.validate({ contents: 1 })).toEqual([
      expect.objectContaining({ code: 'invalid_wire', path: 'contents' }),
    ]);
  });

  it('reports a bad system instruction', () => {
    expect(codes(check([user({ text: 'Hi' })], 'S'))).toEqual(['invalid_wire']);
    expect(codes(check([user({ text: 'Hi' })], { parts: [] }))).toEqual(['empty_content']);
    expect(check([user({ text: 'Hi' })], { parts: [{ text: ' ' }, { inlineData: {} }] })).toEqual([
      expect.objectContaining({ code: 'empty_text', path: 'systemInstruction.parts[0]' }),
      expect.objectContaining({ code: 'invalid_part', path: 'systemInstruction.parts[1]' }),
    ]);
  });

  it('reports invalid contents, roles and parts with their paths', () => {
    expect(check([user({ text: 'Hi' }), 3])).toEqual([
      expect.objectContaining({ code: 'invalid_message', path: 'contents[1]' }),
    ]);
    expect(check([{ role: 'user' }])).toEqual([
      expect.objectContaining({ code: 'invalid_message', path: 'contents[0].parts' }),
    ]);
    expect(check([user({ text: 'Hi' }), { role: 'assistant', parts: [{ text: 'x' }] }])).toEqual([
      expect.objectContaining({ code: 'invalid_role', path: 'contents[1].role' }),
    ]);
    expect(check([user({ text: 'Hi' }, {})])).toEqual([
      expect.objectContaining({ code: 'invalid_part', path: 'contents[0].parts[1]' }),
    ]);
    expect(codes(check([user({ text: 'Hi', inlineData: { mimeType: 'a/b', data: 'x' } })]))).toEqual(['invalid_part']);
    expect(codes(check([user({ text: 3 })]))).toEqual(['invalid_part']);
    expect(codes(check([user({ text: 'Hi' }), model({ functionCall: { args: {} } })]))).toEqual(['invalid_part']);
    expect(codes(check([user({ text: 'Hi' }), model(fc('a')), user({ functionResponse: { name: 'a' } })]))).toEqual([
      'invalid_part',
      'missing_tool_result',
    ]);
  });

  it('reports the first-turn rule, empty parts and blank text', () => {
    expect(check([model({ text: 'Hi' })])).toEqual([
      expect.objectContaining({ code: 'first_not_user', path: 'contents[0]' }),
    ]);
    expect(check([user()])).toEqual([expect.objectContaining({ code: 'empty_content', path: 'contents[0].parts' })]);
    expect(check([user({ text: '' })])).toEqual([
      expect.objectContaining({ code: 'empty_text', path: 'contents[0].parts[0]' }),
    ]);
    expect(check([user({ text: 'Hi' }), model({ text: '', thoughtSignature: 's' })])).toEqual([]);
  });

  it('reports calls and responses in the wrong role', () => {
    expect(codes(check([user(fc('a'))]))).toEqual(['misplaced_part']);
    expect(codes(check([user({ text: 'Hi' }), model(fr('a'))]))).toEqual(['misplaced_part']);
  });

  it('reports calls without a response in the next user content', () => {
    expect(check([user({ text: 'Hi' }), model(fc('a'), fc('b')), user(fr('a'))])).toEqual([
      expect.objectContaining({ code: 'missing_tool_result', path: 'contents[1].parts[1]' }),
    ]);
    expect(codes(check([user({ text: 'Hi' }), model(fc('a'))]))).toEqual(['missing_tool_result']);
    expect(codes(check([user({ text: 'Hi' }), model(fc('a')), model({ text: 'x' })]))).toEqual(['missing_tool_result']);
    expect(codes(check([user({ text: 'Hi' }), model(fc('a', '1')), user(fr('a', '2'))]))).toEqual([
      'orphan_tool_result',
      'missing_tool_result',
    ]);
  });

  it('reports responses without a call in the model content right before', () => {
    expect(check([user(fr('a'))])).toEqual([
      expect.objectContaining({ code: 'orphan_tool_result', path: 'contents[0].parts[0]' }),
    ]);
    expect(codes(check([user({ text: 'Hi' }), model(fc('a')), user(fr('a'), fr('a'))]))).toEqual([
      'orphan_tool_result',
    ]);
    expect(
      codes(check([user({ text: 'Hi' }), model(fc('a')), user(fr('a')), model({ text: 'x' }), user(fr('a'))])),
    ).toEqual(['orphan_tool_result']);
  });
});
