import { describe, expect, it } from 'vitest';
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import { appendToState } from './append-to-state.js';
import { decodeState } from './decode-state.js';
import { encodeState } from './encode-state.js';

const KEY = 'correct horse battery staple 42';
const turn = [Message.system('prompt'), Message.user('Hello', { id: 'u1' }), Message.assistant('Hi', { id: 'a1' })];

describe('appendToState', () => {
  it('adds messages without changing processedLength', () => {
    const blob = encodeState(turn, { provider: 'anthropic', key: KEY });
    const event = Message.user('User checked in at Harrogate Theatre', { id: 'e1' });
    const note = Message.context('Theatre opens at 7pm', { id: 'e2' });
    const appended = appendToState(blob, [event, note], { provider: 'anthropic', key: KEY });
    expect(appended.rejected).toBeUndefined();
    expect(appended.dropped).toBe(0);
    const decoded = decodeState(appended.state, { provider: 'anthropic', key: KEY });
    expect(decoded.messages.map((message) => message.id)).toEqual(['u1', 'a1', 'e1', 'e2']);
    // The model has seen two; the context system message is kept because it is not leading.
    expect(decoded.processedLength).toBe(2);
    expect(decoded.messages[3]?.category).toBe('context');
  });

  it('appends twice and keeps order', () => {
    let state = encodeState(turn, { provider: 'gemini' });
    state = appendToState(state, [Message.user('one', { id: 'x1' })], { provider: 'gemini' }).state;
    state = appendToState(state, [Message.user('two', { id: 'x2' })], { provider: 'gemini' }).state;
    const decoded = decodeState(state, { provider: 'gemini' });
    expect(decoded.messages.map((message) => message.id)).toEqual(['u1', 'a1', 'x1', 'x2']);
    expect(decoded.processedLength).toBe(2);
  });

  it('starts from an empty history when there is no state yet', () => {
    const appended = appendToState(undefined, [Message.user('first event', { id: 'f1' })], { provider: 'gemini' });
    expect(appended.rejected).toBeUndefined();
    const decoded = decodeState(appended.state, { provider: 'gemini' });
    expect(decoded.messages.map((message) => message.id)).toEqual(['f1']);
    expect(decoded.processedLength).toBe(0);
  });

  it('drops, and counts, system messages that would lead an empty history', () => {
    const appended = appendToState(
      undefined,
      [Message.context('ctx'), Message.user('event', { id: 'f1' }), Message.system('after')],
      {
        provider: 'gemini',
      },
    );
    expect(appended.dropped).toBe(1);
    expect(decodeState(appended.state, { provider: 'gemini' }).messages.map((message) => message.role)).toEqual([
      'user',
      'system',
    ]);
  });

  it('starts from an empty history and surfaces the rejection when the blob is bad', () => {
    const foreign = encodeState(turn, { provider: 'anthropic', key: 'a different long secret!!' });
    const appended = appendToState(foreign, [Message.user('event', { id: 'f1' })], { provider: 'anthropic', key: KEY });
    expect(appended.rejected?.reason).toBe('signature');
    const decoded = decodeState(appended.state, { provider: 'anthropic', key: KEY });
    expect(decoded.rejected).toBeUndefined();
    expect(decoded.messages.map((message) => message.id)).toEqual(['f1']);
    expect(decoded.processedLength).toBe(0);

    expect(appendToState('garbage', [], { provider: 'anthropic' }).rejected?.reason).toBe('invalid');
    expect(
      appendToState(encodeState(turn, { provider: 'gemini' }), [], { provider: 'anthropic' }).rejected?.reason,
    ).toBe('provider');
  });

  it('keeps an encrypted state encrypted unless told otherwise', () => {
    const encrypted = encodeState(turn, { provider: 'anthropic', key: KEY, encrypt: true });
    const kept = appendToState(encrypted, [Message.user('secret event')], { provider: 'anthropic', key: KEY });
    expect(kept.state.startsWith('cs1.e.')).toBe(true);
    const downgraded = appendToState(encrypted, [Message.user('event')], {
      provider: 'anthropic',
      key: KEY,
      encrypt: false,
    });
    expect(downgraded.state.startsWith('cs1.s.')).toBe(true);
    const signed = appendToState(encodeState(turn, { provider: 'anthropic', key: KEY }), [], {
      provider: 'anthropic',
      key: KEY,
    });
    expect(signed.state.startsWith('cs1.s.')).toBe(true);
  });

  it('throws for the caller’s own mistakes instead of discarding the state', () => {
    const blob = encodeState(turn, { provider: 'anthropic', key: KEY });
    const code = (run: () => unknown): string | undefined => {
      try {
        run();
      } catch (error) {
        return ChatstateError.isInstance(error) ? error.code : 'other';
      }
      return undefined;
    };
    expect(code(() => appendToState(blob, [], { provider: 'anthropic', key: 'weak' }))).toBe('INVALID_ARGUMENT');
    expect(code(() => appendToState(blob, [], { provider: 'anthropic', encrypt: true }))).toBe('INVALID_ARGUMENT');
    expect(
      code(() =>
        appendToState(blob, [{ role: 'tool', content: 'x' } as unknown as Message], {
          provider: 'anthropic',
          key: KEY,
        }),
      ),
    ).toBe('INVALID_MESSAGE');
    expect(
      code(() =>
        appendToState(blob, [Message.user('x'.repeat(1000))], { provider: 'anthropic', key: KEY, maxBytes: 500 }),
      ),
    ).toBe('TOO_LARGE');
  });

  it('does not mutate the messages it is given', () => {
    const added = [Message.user('event')];
    appendToState(undefined, added, { provider: 'gemini' });
    expect(added).toHaveLength(1);
  });
});
