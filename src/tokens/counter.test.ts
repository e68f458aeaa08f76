import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Message } from '../message/message.js';
import { cachedCounter, createCounter, DEFAULT_WEIGHTS, type TokenCounter } from './counter.js';
import { cl100kBase, o200kBase } from './openai.js';

function countingCounter(): { counter: TokenCounter; calls: () => number } {
  let calls = 0;
  const counter = createCounter({
    name: 'words',
    countText: (text) => {
      calls += 1;
      return text.split(/\s+/).filter(Boolean).length;
    },
  });
  return { counter, calls: () => calls };
}

describe('createCounter', () => {
  it('adds the per-message overhead, names and tool calls', () => {
    const { counter } = countingCounter();
    expect(counter.countMessage(Message.user('one two three'))).toBe(DEFAULT_WEIGHTS.perMessage + 3);
    const call = Message.assistant('ok', { toolCalls: [{ id: 'c', name: 'search', arguments: '{"q": "x y"}' }] });
    expect(counter.countMessage(call)).toBe(DEFAULT_WEIGHTS.perMessage + 1 + DEFAULT_WEIGHTS.perToolCall + 1 + 3);
  });

  it('caches per message: a message is counted once however often it is asked for', () => {
    const { counter, calls } = countingCounter();
    const message = Message.user('a b c');
    counter.countMessage(message);
    const after = calls();
    for (let i = 0; i < 10; i++) counter.countMessage(message);
    expect(calls()).toBe(after);
  });

  it('uses a count recorded on the message under its own name', () => {
    const { counter, calls } = countingCounter();
    expect(counter.countMessage(Message.user('a b c', { tokens: { words: 99, other: 1 } }))).toBe(99);
    expect(calls()).toBe(0);
  });

  it('weighs images and files instead of counting their bytes as text', () => {
    const { counter } = countingCounter();
    const low = Message.user([{ type: 'image', url: 'https://x.test/a.png', detail: 'low' }]);
    const high = Message.user([{ type: 'image', data: 'A'.repeat(100_000), mediaType: 'image/png' }]);
    const text = Message.user([
      { type: 'file', data: Buffer.from('hello big world').toString('base64'), mediaType: 'text/plain' },
    ]);
    const opaque = Message.user([{ type: 'file', fileId: 'file-1', mediaType: 'application/pdf' }]);
    expect(counter.countMessage(low)).toBe(DEFAULT_WEIGHTS.perMessage + DEFAULT_WEIGHTS.imageLow);
    expect(counter.countMessage(high)).toBe(DEFAULT_WEIGHTS.perMessage + DEFAULT_WEIGHTS.image);
    expect(counter.countMessage(text)).toBe(DEFAULT_WEIGHTS.perMessage + 3);
    expect(counter.countMessage(opaque)).toBe(DEFAULT_WEIGHTS.perMessage + DEFAULT_WEIGHTS.opaqueFile);
  });
});

describe('cachedCounter', () => {
  it('wraps a plain counter once and caches its counts', () => {
    let calls = 0;
    const plain: TokenCounter = { name: 'plain', countText: (t) => t.length, countMessage: () => (calls += 1) };
    const cached = cachedCounter(plain);
    expect(cachedCounter(plain)).toBe(cached);
    const message = Message.user('x');
    cached.countMessage(message);
    cached.countMessage(message);
    expect(calls).toBe(1);
  });

  it('returns an already caching counter unchanged', () => {
    expect(cachedCounter(o200kBase)).toBe(o200kBase);
  });
});

describe('exact OpenAI counters', () => {
  it('agree with gpt-tokenizer on text', () => {
    const text = 'Hello, world! const x = {"a": [1, 2, 3]};\n  return x;';
    expect(o200kBase.countText(text)).toBe(countTokens(text));
    expect(cl100kBase.countText(text)).toBeGreaterThan(0);
  });

  it('count special-token text as plain text instead of throwing', () => {
    expect(o200kBase.countText('a <|endoftext|> b')).toBeGreaterThan(3);
  });
});

describe('cached counts and counter names (review regression)', () => {
  it('reads only own counts: a counter named like an Object member counts the message', () => {
    const counter = createCounter({ name: 'constructor', countText: (text) => text.length });
    expect(counter.countMessage(Message.user('hello', { tokens: { estimate: 2 } }))).toBe(
      DEFAULT_WEIGHTS.perMessage + 5,
    );
  });
});
