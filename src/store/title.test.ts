import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import { TITLE_CHARS, metadataTitle, sessionTitle, titleOf } from './title.js';

describe('titles', () => {
  const messages = [
    Message.system('Be brief.'),
    Message.user('Context is no title', { category: 'context' }),
    Message.user('  First   question \n'),
    Message.user('Second'),
  ];

  it('a message gives the text of a user dialog message, whitespace collapsed and shortened', () => {
    expect(messages.map(titleOf)).toEqual([undefined, undefined, 'First question', 'Second']);
    const long = titleOf(Message.user('x'.repeat(500))) ?? '';
    expect(long).toHaveLength(TITLE_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('metadata gives a non-blank string title', () => {
    expect(metadataTitle({ title: ' Trip ' })).toBe('Trip');
    for (const metadata of [{}, { title: '   ' }, { title: 42 }, { title: null }, { title: ['x'] }, undefined] as const)
      expect(metadataTitle(metadata as JsonObject | undefined)).toBeUndefined();
    expect(metadataTitle(JSON.parse('{"__proto__":{"title":"inherited"}}') as never)).toBeUndefined();
  });

  it('a session: metadata.title first, then the stored title, then the first user message', () => {
    expect(sessionTitle({ title: 'Chosen' }, 'Stored', messages)).toBe('Chosen');
    expect(sessionTitle({}, 'Stored', messages)).toBe('Stored');
    expect(sessionTitle({}, undefined, messages)).toBe('First question');
    expect(sessionTitle({}, undefined, [messages[0] as Message])).toBeUndefined();
  });
});
