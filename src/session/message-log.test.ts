import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { codeOf } from '../../test/support/errors.js';
import { MessageLog, concatSequence } from './message-log.js';
import { Session } from './session.js';

/** One step of a history of logs: append `count` messages to the log made at step `from` (a fork when it is not the newest). */
const step = fc.record({ from: fc.nat(), count: fc.integer({ min: 0, max: 4 }) });

describe('MessageLog', () => {
  it('keeps every log exactly its own messages, whichever older log is extended and in what order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.boolean(),
        fc.array(step, { maxLength: 40 }),
        (initial, frozen, steps) => {
          const first = Array.from({ length: initial }, (_, i) => Message.user(`start ${i}`));
          const logs = [MessageLog.of(frozen ? Object.freeze(first) : first)];
          const expected: Message[][] = [first.slice()];
          let made = 0;
          for (const { from, count } of steps) {
            const index = from % logs.length;
            const added = Array.from({ length: count }, () => Message.assistant(`message ${made++}`));
            logs.push((logs[index] as MessageLog).append(added));
            expected.push([...(expected[index] as Message[]), ...added]);
          }
          logs.forEach((log, index) => {
            const want = expected[index] as Message[];
            expect(log.length).toBe(want.length);
            expect(log.toArray()).toEqual(want);
            expect([...log]).toEqual(want);
            expect(log.at(-1)).toBe(want.at(-1));
            expect(log.at(want.length)).toBeUndefined();
            expect(log.slice(1, -1)).toEqual(want.slice(1, -1));
            expect(concatSequence(log, [])).toEqual(want);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives one frozen array per log, and shares a frozen array it was built from', () => {
    const messages = Object.freeze([Message.user('a'), Message.assistant('b')]);
    const log = MessageLog.of(messages);
    expect(log.toArray()).toBe(messages);
    const longer = log.append([Message.user('c')]);
    expect(Object.isFrozen(longer.toArray())).toBe(true);
    expect(longer.toArray()).toBe(longer.toArray());
    expect(Object.isFrozen(longer)).toBe(true);
  });

  it('holds Message values only', () => {
    expect(codeOf(() => MessageLog.of([{ role: 'user', content: 'x' } as unknown as Message]))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(codeOf(() => MessageLog.of([]).append(['x' as unknown as Message]))).toBe('INVALID_ARGUMENT');
  });
});

describe('Session history', () => {
  it('leaves a session unchanged when a session made from it, or from an older one, appends', () => {
    const base = Session.create({ id: 'log' }).append(Message.user('one'));
    const a = base.append(Message.assistant('two'));
    const b = base.append(Message.assistant('other two'));
    const c = a.append(Message.user('three'));
    expect(base.messages.map(Message.text)).toEqual(['one']);
    expect(a.messages.map(Message.text)).toEqual(['one', 'two']);
    expect(b.messages.map(Message.text)).toEqual(['one', 'other two']);
    expect(c.history.length).toBe(3);
    expect(c.messages.map(Message.text)).toEqual(['one', 'two', 'three']);
    expect(Session.fromJSON(JSON.parse(JSON.stringify(c))).messages).toEqual(c.messages);
    expect({ ...c }.messages).toBe(c.messages);
  });
});
