/**
 * Sessions the CLI tests read, written through the library into any store URL: a conversation
 * with a tool exchange, a continuation chain, an expired session and a user value.
 */
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { AtRestKey } from '../../src/store/at-rest.js';
import { openStore } from '../../src/stores/open-store.js';

/** The conversation `trip` (alice, planner): its messages in order. */
export function tripMessages(): Message[] {
  return [
    Message.user('What is the weather in Lisbon?'),
    Message.assistant('', { toolCalls: [{ id: 'call-1', name: 'get_weather', arguments: { city: 'Lisbon' } }] }),
    Message.tool('call-1', '{"city":"Lisbon","sky":"sunny","celsius":24}'),
    Message.assistant('It is sunny in Lisbon, 24 °C.'),
    Message.user('Book me a window seat on the morning flight.'),
    Message.assistant('Done: a window seat on the 07:15 flight.'),
  ];
}

/** Writes the test sessions into the store at `url` (opened with `encryption` when given). */
export async function seed(url: string, encryption?: AtRestKey): Promise<void> {
  const store = await openStore(url, encryption === undefined ? {} : { encryption });
  try {
    await store.save(Session.create({ id: 'trip', userId: 'alice', agentId: 'planner' }).append(...tripMessages()));
    await store.save(
      Session.create({ id: 'chain-a', userId: 'bob', metadata: { continuedTo: 'chain-b' } }).append(
        Message.user('First part of a long talk about gardens.'),
        Message.assistant('Roses like sun.'),
      ),
    );
    await store.save(
      Session.create({
        id: 'chain-b',
        userId: 'bob',
        metadata: { continuedFrom: 'chain-a', continuationIndex: 1 },
      }).append(Message.user('Second part: and tulips?'), Message.assistant('Tulips like cold winters.')),
    );
    await store.save(Session.create({ id: 'old', userId: 'alice' }).append(Message.user('An old question.')), {
      ttlMs: 3_600_000,
    });
    await store.save(Session.create({ id: 'gone', userId: 'alice' }).append(Message.user('Expired already.')), {
      ttlMs: 1,
    });
    await store.values.set({ scope: 'user', userId: 'alice' }, { theme: 'dark' });
  } finally {
    await store.close();
  }
  // The retention of `gone` (1 ms) has passed once this returns; `old` expires in an hour.
  await new Promise((resolve) => setTimeout(resolve, 5));
}
