/**
 * A real LangGraph graph (`StateGraph` over `MessagesAnnotation`, a fake chat model, LangGraph's
 * `ToolNode`) run for several turns with `ChatstateSaver` on every store, restarted over a
 * reopened store, and run again; and the same graph with compaction at turn boundaries.
 */
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { ChatstateSaver } from '../../../src/adapters/langgraph/index.js';
import { compaction } from '../../../src/compaction/index.js';
import type { Message } from '../../../src/message/message.js';
import { compactionLog } from '../../../src/session/compaction-log.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';

const clock = tool(async () => '12:00', { name: 'clock', description: 'The time now.', schema: z.object({}) });

/** The graph: the model asks the clock when the user asks for the time, otherwise answers from its list. */
function agent(saver: ChatstateSaver) {
  let calls = 0;
  const chat = new FakeListChatModel({ responses: ['Hello!', 'It is noon.', 'You are welcome.', 'Still here.'] });
  const model = async (state: typeof MessagesAnnotation.State) => {
    const last = state.messages.at(-1);
    if (last instanceof HumanMessage && String(last.content).includes('time')) {
      calls += 1;
      return {
        messages: [new AIMessage({ content: '', tool_calls: [{ id: `call_${calls}`, name: 'clock', args: {} }] })],
      };
    }
    const reply = await chat.invoke(state.messages);
    return { messages: [new AIMessage({ content: reply.content })] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('model', model)
    .addNode('tools', new ToolNode([clock]))
    .addEdge(START, 'model')
    .addConditionalEdges('model', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'model')
    .compile({ checkpointer: saver });
}

function roles(messages: readonly Message[]): string[] {
  return messages.map((message) => `${message.role}${message.toolCalls === undefined ? '' : '+calls'}`);
}

/** True when every tool result in `messages` follows the assistant message that called it. */
function toolSafe(messages: readonly BaseMessage[]): boolean {
  const called = new Set<string>();
  for (const message of messages) {
    for (const call of (message as AIMessage).tool_calls ?? []) if (call.id !== undefined) called.add(call.id);
    const answered = (message as { tool_call_id?: string }).tool_call_id;
    if (message.getType() === 'tool' && (answered === undefined || !called.has(answered))) return false;
  }
  return true;
}

await describeEveryStore(
  'langgraph graph',
  (subject) => {
    const stores = storesOf(subject);
    const config = { configurable: { thread_id: 'chat-1' } };

    it('runs turns with tools, survives a restart, and shows the thread as a chatstate session', async () => {
      const first = await stores.open();
      const graph = agent(new ChatstateSaver(first));
      await graph.invoke({ messages: [new HumanMessage('hi')] }, config);
      await graph.invoke({ messages: [new HumanMessage('what time is it?')] }, config);
      const before = await graph.getState(config);
      expect((before.values.messages as BaseMessage[]).map((message) => message.content)).toEqual([
        'hi',
        'Hello!',
        'what time is it?',
        '',
        '12:00',
        'It is noon.',
      ]);

      const store = await stores.reopen(first);
      const saver = new ChatstateSaver(store);
      const again = agent(saver);
      const restored = await again.getState(config);
      expect(restored.values.messages).toEqual(before.values.messages);
      await again.invoke({ messages: [new HumanMessage('thanks')] }, config);
      const after = await again.getState(config);
      expect((after.values.messages as BaseMessage[]).slice(-2).map((message) => message.content)).toEqual([
        'thanks',
        'Hello!',
      ]);

      const session = await store.load(saver.sessionsOf('chat-1').conversation);
      expect(roles(session.messages)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant+calls',
        'tool',
        'assistant',
        'user',
        'assistant',
      ]);
      expect(session.messages[4]).toMatchObject({
        role: 'tool',
        content: '12:00',
        toolCallId: 'call_1',
        name: 'clock',
      });
      let history = 0;
      for await (const _ of again.getStateHistory(config)) history += 1;
      expect(history).toBeGreaterThan(8);
    });

    it('compacts only at the end of a turn, never inside a tool loop, and the graph goes on', async () => {
      const store = await stores.open();
      const saver = new ChatstateSaver(store, {
        compaction: { compactor: compaction.messageLimit({ maxMessages: 4 }) },
      });
      const graph = agent(saver);
      const said = ['hi', 'what time is it?', 'thanks', 'and the time now?', 'ok'];
      for (const text of said) await graph.invoke({ messages: [new HumanMessage(text)] }, config);
      // Every stored checkpoint's list is tool-safe, and none ending in a tool call was shortened.
      let compacted = 0;
      for await (const snapshot of graph.getStateHistory(config)) {
        const messages = snapshot.values.messages as BaseMessage[] | undefined;
        if (messages === undefined) continue;
        expect(toolSafe(messages)).toBe(true);
        expect(messages.filter((message) => message.getType() !== 'system').length).toBeLessThanOrEqual(6);
        const last = messages.at(-1) as AIMessage | undefined;
        if (last?.getType() === 'ai' && (last.tool_calls?.length ?? 0) === 0 && messages[0]?.content !== 'hi')
          compacted += 1;
      }
      expect(compacted).toBeGreaterThan(0);
      const state = await graph.getState(config);
      const messages = state.values.messages as BaseMessage[];
      expect(messages.at(-2)?.content).toBe('ok');
      expect(messages.length).toBeLessThanOrEqual(4);
      // The conversation keeps every message, and its compaction log says what happened.
      const session = await store.load(saver.sessionsOf('chat-1').conversation);
      expect(session.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(
        said,
      );
      expect(session.messages).toHaveLength(said.length * 2 + 4);
      const log = compactionLog(session.metadata);
      expect(log.length).toBeGreaterThan(0);
      // Each compaction happened right after a final answer: never inside a tool loop.
      for (const entry of log) {
        expect(entry.strategy).toBe('messageLimit');
        const after = session.messages.find((message) => message.id === entry.afterMessageId);
        expect(after?.role).toBe('assistant');
        expect(after?.toolCalls).toBeUndefined();
      }
      // Another saver on the same thread (a restart) goes on with the log, it does not reset it.
      const compactor = compaction.messageLimit({ maxMessages: 4 });
      const again = agent(new ChatstateSaver(store, { compaction: { compactor } }));
      await again.invoke({ messages: [new HumanMessage('one more')] }, config);
      await again.invoke({ messages: [new HumanMessage('what time is it now?')] }, config);
      const later = await store.load(saver.sessionsOf('chat-1').conversation);
      const longer = compactionLog(later.metadata);
      expect(longer.length).toBeGreaterThan(log.length);
      expect(longer.slice(0, log.length)).toEqual(log);
    });
  },
  'langgraph',
);
