import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { recordCipher } from './at-rest.js';
import { decodeMessage, encodeMessage, messageText, sessionJsonBytes, sessionJsonParts, sessionText } from './codec.js';
import type { MessageRecord } from './driver-types.js';

const plain = recordCipher(undefined, 'test');
const message = Message.create({
  id: 'm1',
  role: 'user',
  content: 'hello "there"',
  timestamp: '2026-01-01T00:00:00.000Z',
});

function recordOf(data: string, seq = 3): MessageRecord {
  return { seq, id: 'm1', data };
}

describe('messageText', () => {
  it('reuses a plain record text, with its seq, and reads back as the decoded message', () => {
    const record = recordOf(encodeMessage(message, 's1', plain));
    const decoded = decodeMessage(record, 's1', plain, 'test');
    const text = messageText(record, decoded);
    expect(text.startsWith('{"seq":3,')).toBe(true);
    expect(Message.create(JSON.parse(text))).toEqual(decoded);
  });

  it('serializes again a record with fields of a newer writer (fromJSON would refuse them)', () => {
    const record = recordOf(JSON.stringify({ ...JSON.parse(encodeMessage(message, 's1', plain)), future: 1 }));
    const decoded = decodeMessage(record, 's1', plain, 'test');
    const text = messageText(record, decoded);
    expect(text).not.toContain('future');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(decoded)));
  });

  it('serializes again a record written over several lines, so an export line stays one line', () => {
    const record = recordOf(JSON.stringify(JSON.parse(encodeMessage(message, 's1', plain)), null, 2));
    const decoded = decodeMessage(record, 's1', plain, 'test');
    expect(messageText(record, decoded)).not.toMatch(/[\r\n]/);
  });

  it('serializes a sealed record from the message, never its ciphertext', () => {
    const sealed = recordCipher({ current: 'k', keys: { k: Buffer.alloc(32, 7) } }, 'test');
    const record = recordOf(encodeMessage(message, 's1', sealed));
    const decoded = decodeMessage(record, 's1', sealed, 'test');
    expect(JSON.parse(messageText(record, decoded))).toEqual(JSON.parse(JSON.stringify(decoded)));
  });
});

describe('sessionText', () => {
  it('places the messages in the session JSON, even when metadata has a "messages" key', () => {
    const records = [recordOf(encodeMessage(message, 's1', plain), 1)];
    const decoded = records.map((record) => decodeMessage(record, 's1', plain, 'test'));
    const session = Session.create({ id: 's1', messages: decoded, metadata: { messages: [] } });
    const text = sessionText(session, records);
    expect(Session.fromJSON(JSON.parse(text)).toJSON()).toEqual(session.toJSON());
  });
});

describe('sessionJsonBytes', () => {
  it('encodes the text between a prefix and a suffix, with and without messages', () => {
    const records = [1, 2, 3].map((seq) => ({
      ...recordOf(encodeMessage(Message.with(message, { id: `m${seq}`, content: `晴れ ${seq} 🌤` }), 's1', plain), seq),
      id: `m${seq}`,
    }));
    const decoded = records.map((record) => decodeMessage(record, 's1', plain, 'test'));
    for (const session of [
      Session.create({ id: 's1', messages: decoded }),
      Session.create({ id: 's1', metadata: { note: '—' } }),
    ]) {
      const stored = session.messages.length === 0 ? [] : records;
      const bytes = sessionJsonBytes(sessionJsonParts(session, stored), '[', ']\n');
      expect(bytes.toString('utf8')).toBe(`[${sessionText(session, stored)}]\n`);
      const serialized = sessionJsonBytes(sessionJsonParts(session)).toString('utf8');
      expect(JSON.parse(serialized)).toEqual(JSON.parse(sessionText(session, stored)));
    }
  });
});

describe('encodeMessage', () => {
  it('keeps the fields of a newer writer when it writes the message again, a "__proto__" one included', () => {
    const data = encodeMessage(message, 's1', plain).replace(/^\{/, '{"__proto__":{"x":1},"future":2,');
    const decoded = decodeMessage(recordOf(data), 's1', plain, 'test');
    const again = JSON.parse(encodeMessage(decoded, 's1', plain)) as Record<string, unknown>;
    expect(again['future']).toBe(2);
    expect(Object.hasOwn(again, '__proto__')).toBe(true);
    expect(JSON.stringify(Object.getOwnPropertyDescriptor(again, '__proto__')?.value)).toBe('{"x":1}');
  });
});
