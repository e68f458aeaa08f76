import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyArb } from '../../test/support/arbitraries.js';
import { damagedHistoryArb } from '../../test/support/damaged-history.js';
import { Message } from '../message/message.js';
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

  it('keeps only the first use of a reused call id', () => {
    const prepared = prepareHistory([
      Message.user('u'),
      Message.assistant('', { toolCalls: [call('x')] }),
      Message.tool('x', '1'),
      Message.assistant('again', { toolCalls: [call('x')] }),
      Message.tool('x', '2'),
      Message.assistant('', { toolCalls: [call('x')] }),
    ]);
    expect(shape(prepared.body)).toEqual(['user:u', 'assistant:x', 'tool:x:1', 'assistant:again']);
    expect(codes(prepared.warnings)).toEqual(['duplicate_tool_call', 'orphan_tool_result', 'duplicate_tool_call']);
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
