/**
 * `memoryTools` (`recall`, `remember`) over the real active memory of a store, used by a model
 * during turns: knowledge remembered in one session is recalled in another of the same user,
 * never by another user.
 */
import { describe, expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import { memoryTools } from '../../src/runtime/memory-tools.js';
import { memoryStore } from '../../src/stores/memory.js';
import { callTools, say, scriptedModel } from '../support/scripted-model.js';
import { closeAfterTest } from './fixtures.js';

function toolResults(messages: readonly Message[]): string[] {
  return messages.filter((message) => message.role === 'tool').map((message) => Message.text(message));
}

describe('memoryTools', () => {
  it('offers recall and remember to an agent with memoryTools, backed by the user’s memory', async () => {
    const store = memoryStore();
    const model = scriptedModel([
      callTools([{ name: 'remember', arguments: { text: 'The user’s dog is called Rex.' } }]),
      say('I will remember Rex.'),
      callTools([{ name: 'recall', arguments: { query: 'dog called', limit: 3 } }]),
      say('Your dog is Rex.'),
      callTools([{ name: 'recall', arguments: { query: 'dog called' } }]),
      say('I do not know your dog.'),
    ]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'pal', model, memoryTools: true } }));
    const first = await conversation.send('monday', 'My dog is called Rex.', { userId: 'alice' });
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['recall', 'remember']);
    expect(JSON.parse(toolResults(first.messages)[0] as string)).toEqual({
      remembered: 'The user’s dog is called Rex.',
      id: expect.stringMatching(/^msg/),
    });

    const second = await conversation.send('tuesday', "What is my dog's name?", { userId: 'alice' });
    const hits = JSON.parse(toolResults(second.messages)[0] as string) as Array<{
      text: string;
      source: string;
      sessionId: string;
    }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.some((hit) => hit.text.includes('Rex'))).toBe(true);
    expect(hits.every((hit) => hit.sessionId === 'monday' || hit.source === 'knowledge')).toBe(true);

    // Another user finds nothing of Alice's.
    const third = await conversation.send('intruder', "What is the dog's name?", { userId: 'mallory' });
    expect(toolResults(third.messages)).toEqual(['Nothing found.']);
  });

  it('returns bad arguments and memory errors to the model as tool errors', async () => {
    const store = memoryStore();
    const model = scriptedModel([
      callTools([
        { id: 'a', name: 'recall', arguments: {} },
        { id: 'b', name: 'recall', arguments: { query: 'x', limit: 500 } },
        { id: 'c', name: 'remember', arguments: { text: 'no user to remember this for' } },
        { id: 'd', name: 'recall', raw: '[1,2]' },
      ]),
      say('ok'),
    ]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'pal', model, memoryTools: true } }));
    const result = await conversation.send('anonymous', 'hi');
    const results = toolResults(result.messages);
    expect(results[0]).toBe('Error: recall failed: "query" must be a non-empty string');
    expect(results[1]).toBe('Error: recall failed: "limit" must be an integer from 1 to 20');
    expect(results[2]).toMatch(/^Error: remember failed: remember needs a handle with a userId/);
    expect(results[3]).toBe('Error: recall failed: the arguments must be a JSON object');
  });

  it('lets the model correct a fact it recalled: the superseded fact is no longer recalled', async () => {
    const store = memoryStore();
    const handle = createSessionHandle({ store, sessionId: 'notes', userId: 'bob' });
    const old = await handle.remember('Bob works at Initech.');
    const model = scriptedModel([
      callTools([
        { name: 'remember', arguments: { text: 'Bob works at Globex.', supersedes: old.messageId } },
        { id: 'bad', name: 'remember', arguments: { text: 'Bob works at Hooli.', supersedes: 'msg-none' } },
      ]),
      say('Noted: Globex.'),
    ]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'pal', model, memoryTools: true } }));
    const result = await conversation.send('monday', 'I moved to Globex.', { userId: 'bob' });
    const [corrected, refused] = toolResults(result.messages);
    expect(JSON.parse(corrected as string)).toMatchObject({
      remembered: 'Bob works at Globex.',
      supersedes: old.messageId,
    });
    expect(refused).toMatch(/^Error: remember failed: .*no fact "msg-none"/);
    const facts = (await handle.recall('where does Bob work', { k: 10 })).filter((hit) => hit.source === 'knowledge');
    expect(facts.map((hit) => hit.text)).toEqual(['Bob works at Globex.']);
  });

  it("keeps the memory tools' results out of recall: no echo of old hits, and a forgotten fact is gone", async () => {
    const store = memoryStore();
    const model = scriptedModel([
      callTools([{ name: 'remember', arguments: { text: 'The user’s dog is called Rex.' } }]),
      say('I will remember Rex.'),
      callTools([{ name: 'recall', arguments: { query: 'dog called Rex' } }]),
      say('Your dog is Rex.'),
    ]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'pal', model, memoryTools: true } }));
    const first = await conversation.send('monday', 'Our puppy arrived today.', { userId: 'alice' });
    const second = await conversation.send('tuesday', 'What is my dog called?', { userId: 'alice' });
    const tools = [...first.messages, ...second.messages].filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.metadata)).toEqual([{ recall: false }, { recall: false }]);
    const fact = JSON.parse(Message.text(tools[0] as Message)) as { id: string };

    const handle = createSessionHandle({ store, sessionId: 'wednesday', userId: 'alice' });
    const recalled = async (): Promise<Array<{ text: string; source: string }>> =>
      handle.recall('dog called Rex', { k: 10 });
    const before = await recalled();
    expect(before.filter((hit) => hit.source === 'knowledge').map((hit) => hit.text)).toEqual([
      'The user’s dog is called Rex.',
    ]);
    // What was said stays recallable; neither tool result (a JSON copy of the fact, of hits) is.
    expect(before.map((hit) => hit.text)).toContain('Your dog is Rex.');
    expect(before.filter((hit) => /^[[{]/.test(hit.text))).toEqual([]);
    await handle.forget(fact.id);
    const after = await recalled();
    expect(after.filter((hit) => hit.text.includes('The user’s dog is called Rex.'))).toEqual([]);
  });

  it('works over an explicit handle, outside a conversation', async () => {
    const store = memoryStore();
    const handle = createSessionHandle({ store, sessionId: 'notes', userId: 'bob' });
    const [recall, remember] = memoryTools(handle);
    const context = {
      sessionId: 'unused',
      toolCallId: 't',
      memory: undefined as never,
      signal: new AbortController().signal,
    };
    await remember?.execute({ text: 'Bob prefers tea over coffee.' }, context);
    const hits = (await recall?.execute({ query: 'tea coffee' }, context)) as Array<{ text: string; source: string }>;
    expect(hits[0]).toMatchObject({ text: 'Bob prefers tea over coffee.', source: 'knowledge' });
  });
});
