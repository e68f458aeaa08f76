/**
 * The tool loop shared by `Conversation` and `chatWithState`: parallel calls, results in call
 * order, and every kind of tool trouble turned into a tool result the model reads.
 */
import { describe, expect, it } from 'vitest';
import { messageLimit } from '../../src/compaction/message-limit.js';
import type { CompactionResult } from '../../src/compaction/types.js';
import { SessionManager } from '../../src/manager/index.js';
import { memoryStore } from '../../src/stores/memory.js';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import { runToolLoop, type ToolLoopInput } from '../../src/runtime/tool-loop.js';
import { detachedMemory } from '../../src/runtime/detached-memory.js';
import type { Tool } from '../../src/runtime/types.js';
import { callTools, say, scriptedModel } from '../support/scripted-model.js';
import { closeAfterTest } from './fixtures.js';

function loopInput(model: ToolLoopInput['model'], tools: Tool[], extra: Partial<ToolLoopInput> = {}): ToolLoopInput {
  const memory = detachedMemory('s', []);
  return {
    model,
    history: [],
    input: [Message.user('go')],
    tools,
    maxIterations: 8,
    toolConcurrency: 8,
    contextFor: (call) => ({ sessionId: 's', toolCallId: call.id, memory, signal: new AbortController().signal }),
    ...extra,
  };
}

/** The report of a crude compaction by `strategy` that kept the last `keep` of `messages`. */
function keptLast(
  messages: readonly Message[],
  keep: number,
  strategy: string,
  tokens = { before: 0, after: 0 },
): CompactionResult {
  return {
    messages: messages.slice(-keep),
    compacted: true,
    strategy,
    removed: { count: messages.length - keep, tokens: 0 },
    modified: { count: 0, tokensSaved: 0 },
    added: [],
    tokensBefore: tokens.before,
    tokensAfter: tokens.after,
    reachedTarget: true,
  };
}

/** A tool that records how many calls of it run at once. */
function overlapTool(): { tool: Tool; peak: () => number } {
  let running = 0;
  let peak = 0;
  return {
    peak: () => peak,
    tool: {
      name: 'slow',
      async execute(args) {
        running += 1;
        peak = Math.max(peak, running);
        // Yield to the event loop: calls started together are all running here.
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        return args;
      },
    },
  };
}

describe('the tool loop', () => {
  it('runs the parallel calls of one answer concurrently and returns results in call order', async () => {
    const { tool, peak } = overlapTool();
    // The first call finishes last: its result must still come first.
    let releaseFirst!: () => void;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    const ordered: Tool = {
      name: 'ordered',
      async execute(args) {
        const { n } = args as { n: number };
        if (n === 1) await first;
        else releaseFirst();
        return `result ${n}`;
      },
    };
    const model = scriptedModel([
      callTools([
        { id: 'a', name: 'slow', arguments: { n: 1 } },
        { id: 'b', name: 'slow', arguments: { n: 2 } },
        { id: 'c', name: 'slow', arguments: { n: 3 } },
      ]),
      callTools([
        { id: 'd', name: 'ordered', arguments: { n: 1 } },
        { id: 'e', name: 'ordered', arguments: { n: 2 } },
      ]),
      say('done'),
    ]);
    const result = await runToolLoop(loopInput(model, [tool, ordered]));
    expect(peak()).toBe(3);
    expect(
      result.messages
        .filter((message) => message.role === 'tool')
        .map((message) => [message.toolCallId, Message.text(message)]),
    ).toEqual([
      ['a', '{"n":1}'],
      ['b', '{"n":2}'],
      ['c', '{"n":3}'],
      ['d', 'result 1'],
      ['e', 'result 2'],
    ]);
  });

  it("gives a tool a signal that fires once the turn is over, and the model only the caller's signal", async () => {
    const signals: AbortSignal[] = [];
    const keep: Tool = { name: 'keep', execute: (_args, context) => (signals.push(context.signal), 'kept') };
    const model = scriptedModel([callTools([{ name: 'keep' }, { name: 'keep' }]), say('done')]);
    const conversation = closeAfterTest(
      new Conversation({ store: memoryStore(), agents: { id: 'a', model, tools: [keep] } }),
    );
    const caller = new AbortController();
    await conversation.send('s', 'go', { signal: caller.signal });
    expect(signals).toHaveLength(2);
    expect(signals[0]).toBe(signals[1]);
    expect(signals[0]?.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
    expect(model.requests.map((request) => request.signal)).toEqual([caller.signal, caller.signal]);
  });

  it('bounds the calls running at once by toolConcurrency', async () => {
    const { tool, peak } = overlapTool();
    const model = scriptedModel([
      callTools([1, 2, 3, 4, 5].map((n) => ({ name: 'slow', arguments: { n } }))),
      say('done'),
    ]);
    await runToolLoop(loopInput(model, [tool], { toolConcurrency: 2 }));
    expect(peak()).toBe(2);
  });

  it('turns a failing tool, an unknown tool, bad JSON and a result that is not JSON into results the model reads', async () => {
    const tools: Tool[] = [
      {
        name: 'boom',
        execute: () => {
          throw new Error('the disk is full');
        },
      },
      { name: 'big', execute: () => ({ value: 10n }) as never },
      { name: 'nothing', execute: () => undefined as never },
      { name: 'text', execute: () => 'plain text stays plain' },
    ];
    const model = scriptedModel([
      callTools([
        { id: '1', name: 'boom' },
        { id: '2', name: 'missing_tool' },
        { id: '3', name: 'text', raw: '{"unterminated": ' },
        { id: '4', name: 'big' },
        { id: '5', name: 'nothing' },
        { id: '6', name: 'text', raw: '' },
      ]),
      say('I handled the errors'),
    ]);
    const result = await runToolLoop(loopInput(model, tools));
    const results = result.messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.metadata.toolError ?? null)).toEqual([
      'failed',
      'unknown_tool',
      'invalid_arguments',
      'invalid_result',
      null,
      null,
    ]);
    const texts = results.map((message) => Message.text(message));
    expect(texts[0]).toBe('Error: boom failed: the disk is full');
    expect(texts[1]).toMatch(
      /^Error: there is no tool named "missing_tool"; available tools: boom, big, nothing, text\.$/,
    );
    expect(texts[2]).toMatch(/^Error: the arguments of text are not valid JSON/);
    expect(texts[3]).toMatch(/^Error: the result of big could not be sent/);
    expect(texts.slice(4)).toEqual(['null', 'plain text stays plain']);
    // The next call carried every result back to the model.
    expect(model.requests[1]?.messages.slice(-6).map((message) => message.toolCallId)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(Message.text(result.reply)).toBe('I handled the errors');
  });

  it('passes tool specs without their execute functions, and none when there are no tools', async () => {
    const tool: Tool = {
      name: 'lookup',
      description: 'Looks things up.',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      execute: () => 'x',
    };
    const model = scriptedModel([say('a'), say('b')]);
    await runToolLoop(loopInput(model, [tool]));
    await runToolLoop(loopInput(model, []));
    expect(model.requests[0]?.tools).toEqual([
      {
        name: 'lookup',
        description: 'Looks things up.',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ]);
    expect(model.requests[1]?.tools).toBeUndefined();
  });

  it('rejects an answer that is not an assistant message as MODEL_FAILED', async () => {
    const model = scriptedModel([
      { message: Message.user('I am not the assistant'), finishReason: 'stop' },
      { message: { role: 'assistant', content: '' } as never, finishReason: 'stop' },
    ]);
    await expect(runToolLoop(loopInput(model, []))).rejects.toMatchObject({
      code: 'MODEL_FAILED',
      message: expect.stringContaining('role user'),
    });
    await expect(runToolLoop(loopInput(model, []))).rejects.toMatchObject({
      code: 'MODEL_FAILED',
      message: expect.stringContaining('not a valid message'),
    });
  });

  it('ignores malformed usage instead of failing the turn', async () => {
    const model = scriptedModel([
      { message: Message.assistant('hi'), usage: { inputTokens: -3 } as never, finishReason: 'stop' },
    ]);
    const result = await runToolLoop(loopInput(model, []));
    expect(result.usage).toEqual({ inputTokens: 0 });
    expect(result.measured).toBeUndefined();
  });
});

describe('compaction timing', () => {
  it('compacts only after the final answer, never on a history ending in an unanswered tool call', async () => {
    const seen: Message[][] = [];
    const compactor = {
      name: 'recording',
      shouldCompact: () => true,
      compact(input: { messages: readonly Message[] }) {
        seen.push([...input.messages]);
        // Keep the last two messages (the final answer and what it answered) — a real, if crude, compaction.
        return keptLast(input.messages, 2, 'recording');
      },
    };
    const store = memoryStore();
    const echo: Tool = { name: 'echo', execute: (args) => args };
    const model = scriptedModel([
      callTools([{ name: 'echo' }]),
      callTools([{ name: 'echo' }]),
      say('final one'),
      say('final two'),
    ]);
    const conversation = closeAfterTest(
      new Conversation({ store, agents: { id: 'a', model, tools: [echo] }, compactor }),
    );
    const first = await conversation.send('s1', 'use tools twice');
    expect(seen).toHaveLength(1);
    for (const history of seen) {
      const last = history.at(-1) as Message;
      expect(last.role).toBe('assistant');
      expect(last.toolCalls).toBeUndefined();
    }
    expect(seen[0]?.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(first.compaction?.compacted).toBe(true);
    // Stored compacted, with expectedVersion, and the turn's messages reported as appended.
    expect((await store.load('s1')).messages.map((message) => message.id)).toEqual(
      first.session.messages.map((message) => message.id),
    );
    expect(first.session.messages).toHaveLength(2);
    expect(first.messages).toHaveLength(6);
    await conversation.send('s1', 'again');
    expect(seen).toHaveLength(2);
  });

  it('drops a compaction another writer overtook, keeping the turn and that writer’s message', async () => {
    const store = memoryStore();
    const model = scriptedModel([say('kept answer')]);
    const compactor = {
      name: 'overtaken',
      async compact(input: { messages: readonly Message[] }) {
        // Another process appends between the turn's commit and the compaction's save.
        await store.append('s1', [Message.user('from elsewhere')]);
        return keptLast(input.messages, 1, 'overtaken', { before: 10, after: 5 });
      },
    };
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model }, compactor }));
    const result = await conversation.send('s1', 'hi');
    expect(result.compaction).toMatchObject({ compacted: false, error: { code: 'CONFLICT' } });
    expect(result.session.messages.map((message) => Message.text(message))).toEqual(['hi', 'kept answer']);
    expect((await store.load('s1')).messages.map((message) => Message.text(message))).toEqual([
      'hi',
      'kept answer',
      'from elsewhere',
    ]);
    // The conversation read the store again: its next turn builds on the other writer's message.
    model.push((request) => say(`seen ${request.messages.length}`));
    expect(Message.text((await conversation.send('s1', 'next')).reply)).toBe('seen 4');
  });

  it("uses its manager's compactor when it has none of its own, stored after the final answer", async () => {
    const store = memoryStore();
    const manager = new SessionManager({
      store,
      autoSaveIntervalMs: false,
      compactor: messageLimit({ maxMessages: 2 }),
    });
    const model = scriptedModel([say('a1'), say('a2')]);
    const conversation = closeAfterTest(new Conversation({ manager, agents: { id: 'a', model } }));
    expect((await conversation.send('s1', 'q1')).compaction).toBeUndefined();
    const second = await conversation.send('s1', 'q2');
    expect(second.compaction).toMatchObject({ compacted: true, strategy: 'messageLimit' });
    expect((await store.load('s1')).messages.map((message) => Message.text(message))).toEqual(['q2', 'a2']);
    await manager.close();
  });

  it('keeps the committed turn when the compactor throws, and says why', async () => {
    const store = memoryStore();
    const model = scriptedModel([say('kept')]);
    const compactor = {
      name: 'broken',
      compact() {
        throw new Error('compactor bug');
      },
    };
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model }, compactor }));
    const result = await conversation.send('s1', 'hi');
    expect(result.compaction).toMatchObject({ compacted: false, strategy: 'broken', error: { code: 'INTERNAL' } });
    expect((await store.load('s1')).messages).toHaveLength(2);
  });
});
