import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyArb } from '../../test/support/arbitraries.js';
import { damagedHistoryArb } from '../../test/support/damaged-history.js';
import { Message } from '../message/message.js';
import { formats, validate } from './index.js';
import { openaiResponses } from './openai-responses.js';
import { MISSING_RESULT_TEXT, prepareHistory } from './prepare.js';

const call = (id: string) => ({ id, name: 'lookup', arguments: '{}' });
const shape = (messages: readonly Message[]): string[] =>
  messages.map((m) =>
    m.role === 'tool'
      ? `tool:${m.toolCallId}:${Message.text(m)}`
      : `${m.role}:${m.toolCalls?.map((c) => c.id).join(',') ?? Message.text(m)}`,
  );
const codes = (warnings: ReadonlyArray<{ code: string }>): string[] => warnings.map((w) => w.code);

describe('prepareHistory', () => {
  it('splits off the leading system messages, context included, and keeps later ones in the body', () => {
    const prepared = prepareHistory([
      Message.system('s'),
      Message.context('c'),
      Message.user('u'),
      Message.system('event'),
      Message.assistant('a'),
    ]);
    expect(shape(prepared.system)).toEqual(['system:s', 'system:c']);
    expect(shape(prepared.body)).toEqual(['user:u', 'system:event', 'assistant:a']);
    expect(prepared.warnings).toEqual([]);
  });

  it('counts system messages that dropped orphan results leave at the front as leading (read back, they would be)', () => {
    const history = [
      Message.system('s'),
      Message.tool('gone', 'orphan'),
      Message.context('c'),
      Message.user('u'),
      Message.system('event'),
      Message.assistant('a'),
    ];
    const prepared = prepareHistory(history);
    expect(shape(prepared.system)).toEqual(['system:s', 'system:c']);
    expect(shape(prepared.body)).toEqual(['user:u', 'system:event', 'assistant:a']);
    expect(codes(prepared.warnings)).toEqual(['orphan_tool_result']);
    const { warnings: _warnings, ...wire } = openaiResponses.to(history);
    const { warnings: _again, ...rewritten } = openaiResponses.to(openaiResponses.from(wire).messages);
    expect(rewritten).toEqual(wire);
  });

  it('moves each result right after its call, in call order, past anything in between', () => {
    const prepared = prepareHistory([
      Message.user('u'),
      Message.assistant('', { toolCalls: [call('a'), call('b')] }),
      Message.system('event'),
      Message.tool('b', 'B'),
      Message.tool('a', 'A'),
      Message.assistant('done'),
    ]);
    expect(shape(prepared.body)).toEqual([
      'user:u',
      'assistant:a,b',
      'tool:a:A',
      'tool:b:B',
      'system:event',
      'assistant:done',
    ]);
    expect(prepared.warnings).toEqual([]);
  });

  it('drops orphan and duplicate results and synthesizes missing ones, with a warning each', () => {
    const prepared = prepareHistory([
      Message.tool('early', 'before its call'),
      Message.user('u'),
      Message.assistant('', { toolCalls: [call('early'), call('lost')] }),
      Message.tool('early', 'E'),
      Message.tool('early', 'again'),
      Message.tool('ghost', 'G'),
      Message.assistant('done'),
    ]);
    expect(shape(prepared.body)).toEqual([
      'user:u',
      'assistant:early,lost',
      'tool:early:E',
      `tool:lost:${MISSING_RESULT_TEXT}`,
      'assistant:done',
    ]);
    expect(codes(prepared.warnings).sort()).toEqual([
      'missing_tool_result',
      'orphan_tool_result',
      'orphan_tool_result',
      'orphan_tool_result',
    ]);
  });

  it('sends a reused call id under a fresh one, with its own result, instead of dropping the exchange', () => {
    const prepared = prepareHistory([
      Message.user('u'),
      Message.assistant('', { toolCalls: [call('x')] }),
      Message.tool('x', '1'),
      Message.assistant('again', { toolCalls: [call('x')] }),
      Message.tool('x', '2'),
      Message.assistant('', { toolCalls: [call('x')] }),
    ]);
    expect(shape(prepared.body)).toEqual([
      'user:u',
      'assistant:x',
      'tool:x:1',
      'assistant:x_2',
      'tool:x_2:2',
      'assistant:x_3',
      `tool:x_3:${MISSING_RESULT_TEXT}`,
    ]);
    expect(Message.text(prepared.body[3] as Message)).toBe('again');
    expect(codes(prepared.warnings)).toEqual(['renamed_tool_call', 'renamed_tool_call', 'missing_tool_result']);
  });

  it('pairs each result with the nearest call of its id before it, and never renames onto an id in use', () => {
    const prepared = prepareHistory([
      Message.user('u'),
      Message.assistant('', { toolCalls: [call('x')] }),
      Message.user('interrupted'),
      Message.assistant('', { toolCalls: [call('x'), call('x_2')] }),
      Message.tool('x', 'second'),
      Message.tool('x_2', 'other'),
    ]);
    expect(shape(prepared.body)).toEqual([
      'user:u',
      'assistant:x',
      `tool:x:${MISSING_RESULT_TEXT}`,
      'user:interrupted',
      'assistant:x_3,x_2',
      'tool:x_3:second',
      'tool:x_2:other',
    ]);
  });

  it('keeps every turn of a model that names its calls call_0 each time, valid for every provider', () => {
    const history = [Message.user('u')];
    for (let turn = 0; turn < 3; turn++)
      history.push(
        Message.assistant('', { toolCalls: [call('call_0'), call('call_1')] }),
        Message.tool('call_0', `a${turn}`),
        Message.tool('call_1', `b${turn}`),
        Message.assistant(`done ${turn}`),
        Message.user(`next ${turn}`),
      );
    const prepared = prepareHistory(history);
    expect(prepared.body.filter((m) => m.role === 'tool').map((m) => Message.text(m))).toEqual([
      'a0',
      'b0',
      'a1',
      'b1',
      'a2',
      'b2',
    ]);
    for (const provider of ['openaiChat', 'openaiResponses', 'anthropic', 'gemini', 'aiSdk'] as const)
      expect(validate(provider, formats[provider].to(history)), provider).toEqual([]);
  });

  it('changes nothing and warns about nothing on a valid history', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        const prepared = prepareHistory(history);
        expect(prepared.warnings).toEqual([]);
        expect(new Set([...prepared.system, ...prepared.body])).toEqual(new Set(history));
      }),
      { numRuns: 200 },
    );
  });

  it('always pairs every call with exactly one result right after it, whatever the damage', () => {
    fc.assert(
      fc.property(damagedHistoryArb, (history) => {
        const { body } = prepareHistory(history);
        for (let i = 0; i < body.length; i++) {
          const message = body[i] as Message;
          if (message.role === 'tool')
            expect(body[i - 1]?.role === 'tool' || (body[i - 1]?.toolCalls?.length ?? 0) > 0).toBe(true);
          const ids = message.toolCalls?.map((c) => c.id) ?? [];
          expect(body.slice(i + 1, i + 1 + ids.length).map((m) => m.toolCallId)).toEqual(ids);
        }
        const results = body.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
        expect(new Set(results).size).toBe(results.length);
      }),
      { numRuns: 300 },
    );
  });
});
