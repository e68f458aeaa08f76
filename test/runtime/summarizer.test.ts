/**
 * `modelSummarizer`: `compaction.summarize` with a `ChatModel` writing the summary — what it sends,
 * that a summary is never empty, and that a conversation compacts with it after an answer.
 */
import { describe, expect, it } from 'vitest';
import { isSummary, summarize } from '../../src/compaction/summarize.js';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import { DEFAULT_SUMMARY_PROMPT, modelSummarizer } from '../../src/runtime/summarizer.js';
import { Session } from '../../src/session/session.js';
import { memoryStore } from '../../src/stores/memory.js';
import { say, scriptedModel } from '../support/scripted-model.js';
import { closeAfterTest } from './fixtures.js';

function history(): Session {
  return Session.create({
    messages: [
      Message.user('Book me a table for two on Friday.'),
      Message.assistant('', { toolCalls: [{ id: 'c1', name: 'book_table', arguments: '{"people":2,"day":"Friday"}' }] }),
      Message.tool('c1', '{"confirmation":"R-1234","time":"19:30"}', { name: 'book_table' }),
      Message.assistant('Booked for Friday 19:30, confirmation R-1234.'),
      Message.user('Thanks. Also remind me to call Anna.'),
      Message.assistant('Noted: call Anna.'),
    ],
  });
}

describe('modelSummarizer', () => {
  it('sends a transcript with the tool exchange under the default prompt and stores the answer as a context summary', async () => {
    const model = scriptedModel([say('Decisions: table for two booked Friday 19:30 (R-1234). Open: remind the user to call Anna.')]);
    const compactor = summarize({ summarizer: modelSummarizer(model, { maxOutputTokens: 300 }), keepTurns: 1 });
    const { session, result } = await history().compact(compactor);
    expect(result?.compacted).toBe(true);
    const request = model.requests[0];
    expect(request?.system).toBe(DEFAULT_SUMMARY_PROMPT);
    expect(request?.maxOutputTokens).toBe(300);
    expect(request?.tools).toBeUndefined();
    expect(request?.messages).toHaveLength(1);
    const transcript = Message.text(request?.messages[0] as Message);
    expect(transcript).toContain('[TOOL] tool_use: book_table {"people":2,"day":"Friday"}');
    expect(transcript).toContain('[TOOL] tool_result (book_table): {"confirmation":"R-1234","time":"19:30"}');
    const summary = session.messages[0] as Message;
    expect(isSummary(summary)).toBe(true);
    expect(summary.category).toBe('context');
    expect(Message.text(summary)).toContain('R-1234');
    expect(session.messages.slice(1).map((message) => Message.text(message))).toEqual(['Thanks. Also remind me to call Anna.', 'Noted: call Anna.']);
  });

  it('gives the model the previous summary to merge', async () => {
    const model = scriptedModel([say('first summary'), say('merged summary')]);
    const compactor = summarize({ summarizer: modelSummarizer(model, { prompt: 'Summarize.' }), keepTurns: 1 });
    const once = (await history().compact(compactor)).session;
    const twice = (await once.append(Message.user('And one more thing.'), Message.assistant('Sure.')).compact(compactor)).session;
    expect(Message.text(model.requests[1]?.messages[0] as Message)).toMatch(/^Previous summary:\nfirst summary/);
    expect(model.requests[1]?.system).toBe('Summarize.');
    expect(Message.text(twice.messages[0] as Message)).toBe('merged summary');
  });

  it('never stores an empty summary: the history is kept and SUMMARY_FAILED reported', async () => {
    const onlyReasoning = { message: Message.assistant([{ type: 'reasoning', text: 'Let me think about it.' }]), finishReason: 'stop' as const };
    for (const answer of [onlyReasoning, { message: Message.assistant('', { toolCalls: [{ id: 'x', name: 'nope', arguments: '{}' }] }), finishReason: 'tool_calls' as const }]) {
      const model = scriptedModel([answer]);
      const { session, result } = await history().compact(summarize({ summarizer: modelSummarizer(model), keepTurns: 1 }));
      expect(result?.error?.code).toBe('SUMMARY_FAILED');
      expect(session.messages).toHaveLength(6);
    }
  });

  it('reports a failed model call as SUMMARY_FAILED, keeping the history', async () => {
    const model = scriptedModel([{ error: Object.assign(new Error('rate limited'), { status: 429 }) }]);
    const { session, result } = await history().compact(summarize({ summarizer: modelSummarizer(model), keepTurns: 1 }));
    expect(result?.error?.code).toBe('SUMMARY_FAILED');
    expect(session.messages).toHaveLength(6);
  });

  it('summarizes after a final answer when a conversation uses it as its compactor', async () => {
    const store = memoryStore();
    const chat = scriptedModel([say('a1'), say('a2'), say('a3')]);
    const writer = scriptedModel([say('Earlier: q1 and q2 were asked and answered.')]);
    const compactor = summarize({ summarizer: modelSummarizer(writer), keepTurns: 2 });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model: chat }, compactor }));
    for (const question of ['q1', 'q2', 'q3']) await conversation.send('s1', question);
    const stored = await store.load('s1');
    expect(stored.messages.map((message) => Message.text(message))).toEqual(['Earlier: q1 and q2 were asked and answered.', 'q2', 'a2', 'q3', 'a3']);
    expect(writer.requests).toHaveLength(1);
  });

  it('checks its options', () => {
    const model = scriptedModel();
    expect(() => modelSummarizer({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => modelSummarizer(model, { prompt: ' ' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => modelSummarizer(model, { maxOutputTokens: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => modelSummarizer(model, { maxCharsPerMessage: 1.5 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
