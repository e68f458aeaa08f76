/**
 * Working memory in a conversation: the agent's model sees the user's working memory in its system
 * prompt and changes it with `update_working_memory`; a refused patch reaches it as a tool error.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WorkingMemory } from '../../src/active-memory/working-memory.js';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import { memoryStore } from '../../src/stores/memory.js';
import { callTools, say, scriptedModel } from '../support/scripted-model.js';
import { closeAfterTest } from './fixtures.js';

function toolResults(messages: readonly Message[]): string[] {
  return messages.filter((message) => message.role === 'tool').map((message) => Message.text(message));
}

describe('working memory in a conversation', () => {
  it('shows the memory in the system prompt and updates it through the tool', async () => {
    const store = memoryStore();
    const model = scriptedModel([
      callTools([{ name: 'update_working_memory', arguments: { patch: { name: 'Ada', goals: ['run 10k'] } } }]),
      say('Hello Ada.'),
      callTools([{ name: 'update_working_memory', arguments: { patch: { goals: ['run a marathon'], name: null } } }]),
      say('Noted.'),
    ]);
    const conversation = closeAfterTest(
      new Conversation({ store, agents: { id: 'coach', model, system: 'You are a coach.', workingMemory: true } }),
    );
    const first = await conversation.send('monday', 'I am Ada and want to run 10k.', { userId: 'ada' });
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['update_working_memory']);
    expect(model.requests[0]?.system).toMatch(/^You are a coach\.\n\n## Working memory\n/);
    expect(model.requests[0]?.system).toContain('(version 0)');
    expect(JSON.parse(toolResults(first.messages)[0] as string)).toEqual({
      version: 2,
      document: { name: 'Ada', goals: ['run 10k'] },
    });
    // The next turn (another session of the same user) starts from the updated memory.
    await conversation.send('tuesday', 'Actually, a marathon.', { userId: 'ada' });
    expect(model.requests[2]?.system).toContain('"name": "Ada"');
    const memory = new WorkingMemory({ store, userId: 'ada' });
    expect(await memory.read()).toMatchObject({
      version: 3,
      document: { goals: ['run a marathon'] },
      by: 'agent:coach',
    });
  });

  it('keeps a memory per agent with scope agent, refuses a patch that breaks the schema, and has none without a user', async () => {
    const store = memoryStore();
    const model = scriptedModel([
      callTools([{ name: 'update_working_memory', arguments: { patch: { mood: 42 } } }]),
      say('ok'),
      say('no user'),
    ]);
    const conversation = closeAfterTest(
      new Conversation({
        store,
        agents: {
          id: 'coach',
          model,
          workingMemory: { scope: 'agent', schema: z.object({ mood: z.string().optional() }) },
        },
      }),
    );
    const result = await conversation.send('monday', 'hi', { userId: 'ada' });
    expect(toolResults(result.messages)[0]).toMatch(
      /^Error: update_working_memory failed: .*would not match its schema/,
    );
    expect(model.requests[0]?.system).toContain('Its JSON Schema:');
    expect((await new WorkingMemory({ store, userId: 'ada', agentId: 'coach' }).read()).version).toBe(0);
    await conversation.send('anonymous', 'hi');
    expect(model.requests[2]?.system).toBeUndefined();
  });

  it('refuses a session id in the working memory namespace, and bad options when the agent is made', async () => {
    const store = memoryStore();
    const model = scriptedModel([say('never')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'coach', model } }));
    await expect(conversation.send('working-memory-abc', 'hi')).rejects.toMatchObject({ code: 'INVALID_ID' });
    expect(
      () => new Conversation({ store, agents: { id: 'coach', model, workingMemory: { scope: 'team' as never } } }),
    ).toThrow(/workingMemory.scope/);
    expect(
      () => new Conversation({ store, agents: { id: 'coach', model, workingMemory: { schema: 'x' as never } } }),
    ).toThrow(/schema/);
  });
});
