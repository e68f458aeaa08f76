/**
 * A LangGraph thread with history, built with LangGraph's own APIs over `ChatstateSaver`: three
 * turns of a `StateGraph` on `MessagesAnnotation`, a fork from the checkpoint after the first turn
 * (`invoke` with its `checkpoint_id`), an edit that replaces the first user message by its id
 * (`updateState`), and one more turn. The conversation then holds every message the thread ever
 * had, while the thread (`getState`) holds only the current branch with the edit.
 */
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ChatstateSaver } from '../../../src/adapters/langgraph/index.js';
import type { SessionStore } from '../../../src/store/session-store-types.js';

/** The thread id of the built thread. */
export const FORKED_THREAD = 'forked-1';

/** What the built thread is, as LangGraph tells it. */
export interface ForkedThread {
  readonly saver: ChatstateSaver;
  /** The conversation session's id. */
  readonly conversation: string;
  /** The checkpoint-log session's id. */
  readonly log: string;
  /** `graph.getState` of the thread: its newest checkpoint. */
  readonly state: { readonly checkpointId: string; readonly messages: readonly BaseMessage[] };
  /** The checkpoint the fork started from, and its messages. */
  readonly forkPoint: { readonly checkpointId: string; readonly messages: readonly BaseMessage[] };
  /** The checkpoint the first branch ended at (before the fork), and its messages. */
  readonly firstBranch: { readonly checkpointId: string; readonly messages: readonly BaseMessage[] };
  /** Checkpoints `getStateHistory` lists. */
  readonly checkpointCount: number;
}

/** The graph: a model that answers each user message by quoting it. */
export function echoGraph(saver: ChatstateSaver) {
  const model = (state: typeof MessagesAnnotation.State) => {
    const last = state.messages.at(-1);
    return { messages: [new AIMessage({ content: `You said: ${String(last?.content ?? '')}` })] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('model', model)
    .addEdge(START, 'model')
    .addEdge('model', END)
    .compile({ checkpointer: saver });
}

function checkpointIdOf(config: { readonly configurable?: Record<string, unknown> }): string {
  const id = config.configurable?.['checkpoint_id'];
  if (typeof id !== 'string') throw new Error('no checkpoint_id in the state config');
  return id;
}

/** Builds the forked and edited thread in `store`. */
export async function buildForkedThread(store: SessionStore): Promise<ForkedThread> {
  const saver = new ChatstateSaver(store);
  const graph = echoGraph(saver);
  const config = { configurable: { thread_id: FORKED_THREAD } };
  await graph.invoke({ messages: [new HumanMessage('Plan a trip to Lisbon')] }, config);
  const afterFirst = await graph.getState(config);
  await graph.invoke({ messages: [new HumanMessage('Three days in May')] }, config);
  await graph.invoke({ messages: [new HumanMessage('Add a day trip to Sintra')] }, config);
  const firstBranch = await graph.getState(config);

  // Time travel: go on from the checkpoint after the first turn, with another question.
  const forkConfig = {
    configurable: { thread_id: FORKED_THREAD, checkpoint_id: checkpointIdOf(afterFirst.config) },
  };
  await graph.invoke({ messages: [new HumanMessage('Make it Porto instead')] }, forkConfig);
  // An edit: the first user message replaced by its id (the messages reducer replaces in place).
  const firstMessage = (afterFirst.values.messages as BaseMessage[])[0] as BaseMessage;
  await graph.updateState(config, {
    messages: [new HumanMessage({ id: firstMessage.id as string, content: 'Plan a trip to Portugal' })],
  });
  await graph.invoke({ messages: [new HumanMessage('Four days, by train')] }, config);
  const state = await graph.getState(config);

  let checkpointCount = 0;
  for await (const _ of graph.getStateHistory(config)) checkpointCount += 1;
  const sessions = saver.sessionsOf(FORKED_THREAD);
  return {
    saver,
    conversation: sessions.conversation,
    log: sessions.log,
    state: { checkpointId: checkpointIdOf(state.config), messages: state.values.messages as BaseMessage[] },
    forkPoint: {
      checkpointId: checkpointIdOf(afterFirst.config),
      messages: afterFirst.values.messages as BaseMessage[],
    },
    firstBranch: {
      checkpointId: checkpointIdOf(firstBranch.config),
      messages: firstBranch.values.messages as BaseMessage[],
    },
    checkpointCount,
  };
}
