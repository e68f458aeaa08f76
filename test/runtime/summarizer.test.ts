/**
 * `modelSummarizer`: `compaction.summarize` with a `ChatModel` writing the summary — what it sends,
 * that a summary is never empty, and that a conversation compacts with it after an answer.
 */
import { describe, expect, it, vi } from 'vitest';
import { composite } from '../../src/compaction/composite.js';
import { isSummary, summarize } from '../../src/compaction/summarize.js';
import { truncateToolOutputs } from '../../src/compaction/truncate-tool-outputs.js';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import { chatWithState } from '../../src/runtime/chat-with-state.js';
import { DEFAULT_SUMMARY_PROMPT, modelSummarizer } from '../../src/runtime/summarizer.js';
import { Session } from '../../src/session/session.js';
import { memoryStore } from '../../src/stores/memory.js';
import { say, scriptedModel, waitForAbort } from '../support/scripted-model.js';
import { closeAfterTest } from './fixtures.js';

function history(): Session {
  return Session.create({
    messages: [
      Message.user('Book me a table for two on Friday.'),
      Message.assistant('', {
        toolCalls: [{ id: 'c1', name: 'book_table', arguments: '{"people":2,"day":"Friday"}' }],
      }),
      Message.tool('c1', '{"confirmation":"R-1234","time":"19:30"}', { name: 'book_table' }),
      Message.assistant('Booked for Friday 19:30, confirmation R-1234.'),
      Message.user('Thanks. Also remind me to call Anna.'),
      Message.assistant('Noted: call Anna.'),
    ],
  });
}

describe('modelSummarizer', () => {
  it('sends a transcript with the tool exchange under the default prompt and stores the answer as a context summary', async () => {
    const model = scriptedModel([
      say('Decisions: table for two booked Friday 19:30 (R-1234). Open: remind the user to call Anna.'),
    ]);
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
    expect(session.messages.slice(1).map((message) => Message.text(message))).toEqual([
      'Thanks. Also remind me to call Anna.',
      'Noted: call Anna.',
    ]);
  });

  it('gives the model the previous summary to merge', async () => {
    const model = scriptedModel([say('first summary'), say('merged summary')]);
    const compactor = summarize({ summarizer: modelSummarizer(model, { prompt: 'Summarize.' }), keepTurns: 1 });
    const once = (await history().compact(compactor)).session;
    const twice = (
      await once.append(Message.user('And one more thing.'), Message.assistant('Sure.')).compact(compactor)
    ).session;
    expect(Message.text(model.requests[1]?.messages[0] as Message)).toMatch(/^Previous summary:\nfirst summary/);
    expect(model.requests[1]?.system).toBe('Summarize.');
    expect(Message.text(twice.messages[0] as Message)).toBe('merged summary');
  });

  it('never stores an empty summary: the history is kept and SUMMARY_FAILED reported', async () => {
    const onlyReasoning = {
      message: Message.assistant([{ type: 'reasoning', text: 'Let me think about it.' }]),
      finishReason: 'stop' as const,
    };
    for (const answer of [
      onlyReasoning,
      {
        message: Message.assistant('', { toolCalls: [{ id: 'x', name: 'nope', arguments: '{}' }] }),
        finishReason: 'tool_calls' as const,
      },
    ]) {
      const model = scriptedModel([answer]);
      const { session, result } = await history().compact(
        summarize({ summarizer: modelSummarizer(model), keepTurns: 1 }),
      );
      expect(result?.error?.code).toBe('SUMMARY_FAILED');
      expect(session.messages).toHaveLength(6);
    }
  });

  it('reports a failed model call as SUMMARY_FAILED, keeping the history', async () => {
    const model = scriptedModel([{ error: Object.assign(new Error('rate limited'), { status: 429 }) }]);
    const { session, result } = await history().compact(
      summarize({ summarizer: modelSummarizer(model), keepTurns: 1 }),
    );
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
    expect(stored.messages.map((message) => Message.text(message))).toEqual([
      'Earlier: q1 and q2 were asked and answered.',
      'q2',
      'a2',
      'q3',
      'a3',
    ]);
    expect(writer.requests).toHaveLength(1);
  });

  it('hands the compaction signal to the model call, also through a composite whose first part compacted', async () => {
    const controller = new AbortController();
    const writer = scriptedModel([waitForAbort()]);
    const summaries = summarize({ summarizer: modelSummarizer(writer), keepTurns: 1 });
    // Tool outputs cut to a few tokens first: the summary then runs on a history that already changed.
    const both = composite(truncateToolOutputs({ maxTokens: 2 }), summaries);
    const pending = history().compact(both, { signal: controller.signal, force: true });
    await vi.waitFor(() => expect(writer.requests).toHaveLength(1));
    expect(writer.requests[0]?.signal).toBe(controller.signal);
    controller.abort();
    const { session, result } = await pending;
    expect(result?.error?.code).toBe('SUMMARY_FAILED');
    expect(session.messages.some((message) => isSummary(message))).toBe(false);
  });

  it('stops a summary when the turn is aborted after its answer was stored: the turn stays, the compaction reports the abort', async () => {
    const store = memoryStore();
    const controller = new AbortController();
    const chat = scriptedModel([say('a1'), say('a2')]);
    const writer = scriptedModel([waitForAbort()]);
    const compactor = summarize({ summarizer: modelSummarizer(writer), keepTurns: 1 });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model: chat }, compactor }));
    await conversation.send('s1', 'q1');
    const turn = conversation.send('s1', 'q2', { signal: controller.signal });
    await vi.waitFor(() => expect(writer.requests).toHaveLength(1));
    expect(writer.requests[0]?.signal?.aborted).toBe(false);
    controller.abort();
    const result = await turn;
    expect(writer.requests[0]?.signal?.aborted).toBe(true);
    expect(result.compaction?.error?.code).toBe('SUMMARY_FAILED');
    expect(Message.text(result.reply)).toBe('a2');
    expect((await store.load('s1')).messages.map((message) => Message.text(message))).toEqual(['q1', 'a1', 'q2', 'a2']);
  });

  it('stops a summary of chatWithState with the call signal', async () => {
    const controller = new AbortController();
    const writer = scriptedModel([waitForAbort()]);
    const chat = scriptedModel([say('a1'), say('a2')]);
    const compactor = summarize({ summarizer: modelSummarizer(writer), keepTurns: 1 });
    const first = await chatWithState(chat, undefined, 'q1');
    const call = chatWithState(chat, first.state, 'q2', { compactor, signal: controller.signal });
    await vi.waitFor(() => expect(writer.requests).toHaveLength(1));
    controller.abort();
    const result = await call;
    expect(result.compaction?.error?.code).toBe('SUMMARY_FAILED');
    expect(Message.text(result.reply)).toBe('a2');
  });

  it('checks its options', () => {
    const model = scriptedModel();
    expect(() => modelSummarizer({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => modelSummarizer(model, { prompt: ' ' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => modelSummarizer(model, { maxOutputTokens: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => modelSummarizer(model, { maxCharsPerMessage: 1.5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
