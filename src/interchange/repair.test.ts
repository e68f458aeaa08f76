import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { formats, validate } from '../formats/index.js';
import { IMPORTED_MISSING_RESULT, repairToolPairs } from './repair.js';

const call = (id: string, name = 'lookup') =>
  Message.assistant('', { toolCalls: [{ id, name, arguments: { q: id } }] });

describe('repairToolPairs', () => {
  it('leaves a well-paired history as it is', () => {
    const history = [Message.user('hi'), call('c1'), Message.tool('c1', 'one'), Message.assistant('done')];
    const { messages, repairs } = repairToolPairs(history);
    expect(repairs).toEqual([]);
    expect(messages).toEqual(history);
  });

  it('keeps an orphaned result as a context message with its text and call id', () => {
    const orphan = Message.tool('gone', 'the weather was sunny', { name: 'weather' });
    const { messages, repairs } = repairToolPairs([Message.user('hi'), orphan, Message.assistant('ok')]);
    expect(repairs).toEqual([expect.objectContaining({ kind: 'orphan_tool_result', messageId: orphan.id })]);
    const kept = messages[1] as Message;
    expect(kept).toMatchObject({
      id: orphan.id,
      role: 'system',
      category: 'context',
      content: 'the weather was sunny',
    });
    expect(kept.metadata).toMatchObject({
      imported: { was: 'tool', why: 'orphan_tool_result', toolCallId: 'gone', name: 'weather' },
    });
  });

  it('keeps a second result for one call as context, and answers a call that had none', () => {
    const { messages, repairs } = repairToolPairs([
      Message.user('hi'),
      call('c1'),
      Message.tool('c1', 'first'),
      Message.tool('c1', 'second'),
      call('c2', 'search'),
      Message.user('next question'),
    ]);
    expect(repairs.map((repair) => repair.kind)).toEqual(['duplicate_tool_result', 'missing_tool_result']);
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'hi'],
      ['assistant', ''],
      ['tool', 'first'],
      ['system', 'second'],
      ['assistant', ''],
      ['tool', IMPORTED_MISSING_RESULT],
      ['user', 'next question'],
    ]);
    // The repaired history is valid for a provider as it stands.
    expect(validate('openaiChat', { messages: formats.openaiChat.to(messages).messages })).toEqual([]);
  });

  it('keeps an orphan that comes amid a partly answered call after the call and its results', () => {
    const twoCalls = Message.assistant('', {
      toolCalls: [
        { id: 'a', name: 'lookup', arguments: {} },
        { id: 'b', name: 'lookup', arguments: {} },
      ],
    });
    const { messages, repairs } = repairToolPairs([
      Message.user('hi'),
      twoCalls,
      Message.tool('a', 'result a'),
      Message.tool('gone', 'stray result'),
      Message.assistant('done'),
    ]);
    expect(repairs.map((repair) => repair.kind)).toEqual(['orphan_tool_result', 'missing_tool_result']);
    expect(messages.map((message) => [message.role, message.toolCallId ?? null, message.content])).toEqual([
      ['user', null, 'hi'],
      ['assistant', null, ''],
      ['tool', 'a', 'result a'],
      ['tool', 'b', IMPORTED_MISSING_RESULT],
      ['system', null, 'stray result'],
      ['assistant', null, 'done'],
    ]);
    expect(validate('openaiChat', { messages: formats.openaiChat.to(messages).messages })).toEqual([]);
    expect(validate('anthropic', formats.anthropic.to(messages))).toEqual([]);
  });

  it('answers calls left open at the end of the history', () => {
    const { messages, repairs } = repairToolPairs([Message.user('hi'), call('c9')]);
    expect(repairs).toEqual([expect.objectContaining({ kind: 'missing_tool_result' })]);
    const caller = messages[1] as Message;
    expect(messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'c9',
      name: 'lookup',
      id: `${caller.id}.r0`,
      timestamp: caller.timestamp,
    });
    // The same source repaired again gives the same messages.
    expect(repairToolPairs([messages[0] as Message, caller]).messages).toEqual(messages);
  });
});
