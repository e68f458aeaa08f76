/** `compactAfterAnswer`: the compaction step of a turn's end — after a final answer only, never throwing. */
import { describe, expect, it } from 'vitest';
import { messageLimit } from '../compaction/message-limit.js';
import type { Compactor } from '../compaction/types.js';
import { Message } from '../message/message.js';
import { estimate } from '../tokens/estimate.js';
import { compactAfterAnswer } from './index.js';

const history = [Message.user('q1'), Message.assistant('a1'), Message.user('q2'), Message.assistant('a2')];

describe('compactAfterAnswer', () => {
  it('compacts a history that ends with a final answer', async () => {
    const result = await compactAfterAnswer(messageLimit({ maxMessages: 2 }), { messages: history, counter: estimate });
    expect(result?.compacted).toBe(true);
    expect(result?.messages.map((message) => Message.text(message))).toEqual(['q2', 'a2']);
  });

  it('leaves alone a history in the middle of a tool loop or waiting for an answer, and one its trigger declines', async () => {
    const compactor = messageLimit({ maxMessages: 1 });
    const call = Message.assistant('', { toolCalls: [{ id: 'c1', name: 'look', arguments: {} }] });
    expect(
      await compactAfterAnswer(compactor, { messages: [...history, Message.user('q3'), call], counter: estimate }),
    ).toBeUndefined();
    expect(
      await compactAfterAnswer(compactor, { messages: [...history, Message.user('q3')], counter: estimate }),
    ).toBeUndefined();
    expect(await compactAfterAnswer(compactor, { messages: [], counter: estimate })).toBeUndefined();
    expect(
      await compactAfterAnswer(messageLimit({ maxMessages: 10 }), { messages: history, counter: estimate }),
    ).toBeUndefined();
  });

  it('turns a failing compactor into a report that carries the error, with the history unchanged', async () => {
    const broken: Compactor = {
      name: 'broken',
      shouldCompact: () => true,
      compact: () => Promise.reject(new Error('compactor bug')),
    };
    const result = await compactAfterAnswer(broken, { messages: history, counter: estimate });
    expect(result).toMatchObject({
      compacted: false,
      strategy: 'broken',
      error: { code: 'INTERNAL', message: 'Compaction failed: compactor bug' },
    });
    expect(result?.messages).toBe(history);
  });
});
