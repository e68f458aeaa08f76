/**
 * `readThreadView` against LangGraph itself: a thread forked from an earlier checkpoint and edited
 * (a message replaced by its id) is read back at its current checkpoint, and at older ones, as
 * exactly the messages `graph.getState` gives (LangChain ids and contents, in order), while the
 * conversation (the append log) holds more; the checkpoints, branches and the messages the
 * checkpoint does not hold are told apart. On every store.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { expect, it } from 'vitest';
import { readThreadView, type ThreadView } from '../../../src/adapters/langgraph/thread-view.js';
import { toLangChainSerialized } from '../../../src/interchange/langgraph/messages.js';
import { Message } from '../../../src/message/message.js';
import { Session } from '../../../src/session/session.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { buildForkedThread, echoGraph, FORKED_THREAD } from './forked-thread.js';

/** A stored message as LangGraph gets it back: its LangChain id and its content. */
function asLangChain(message: Message): { id: unknown; content: unknown } {
  const serialized = toLangChainSerialized(message) as { kwargs: { id?: unknown; content?: unknown } };
  return { id: serialized.kwargs.id, content: serialized.kwargs.content };
}

function fromGraph(messages: readonly BaseMessage[]): Array<{ id: unknown; content: unknown }> {
  return messages.map((message) => ({ id: message.id, content: message.content }));
}

function texts(view: ThreadView): string[] {
  return view.messages.map((message) => String(message.content));
}

await describeEveryStore(
  'langgraph thread view',
  (subject) => {
    const stores = storesOf(subject);

    it('shows the thread at its current checkpoint, as getState holds it, while the log holds more', async () => {
      const store = await stores.open();
      const thread = await buildForkedThread(store);
      const view = (await readThreadView(store, thread.conversation)) as ThreadView;
      expect(view).toBeDefined();
      expect(view.messages.map(asLangChain)).toEqual(fromGraph(thread.state.messages));
      expect(texts(view)).toEqual([
        'Plan a trip to Portugal',
        'You said: Plan a trip to Lisbon',
        'Make it Porto instead',
        'You said: Make it Porto instead',
        'Four days, by train',
        'You said: Four days, by train',
      ]);
      expect(view).toMatchObject({
        threadId: FORKED_THREAD,
        namespace: '',
        conversation: thread.conversation,
        log: thread.log,
        channel: 'messages',
        latest: thread.state.checkpointId,
        messageCount: 6,
      });
      expect(view.checkpoint).toMatchObject({ id: thread.state.checkpointId, current: true, onPath: true, tip: true });

      // The log: every message the thread ever had, the replaced one and the abandoned branch too.
      const log = await store.load(thread.conversation);
      expect(view.logCount).toBe(log.messages.length);
      expect(view.logCount).toBeGreaterThan(view.messages.length);
      expect(view.elsewhere.count).toBe(view.logCount - view.messages.length);
      const elsewhere = view.elsewhere.messages.map((entry) => [String(entry.message.content), entry.kind]);
      expect(elsewhere).toEqual(
        expect.arrayContaining([
          ['Plan a trip to Lisbon', 'replaced'],
          ['Three days in May', 'other'],
          ['You said: Add a day trip to Sintra', 'other'],
        ]),
      );
      const replaced = view.elsewhere.messages.find((entry) => entry.kind === 'replaced');
      expect(replaced?.now).toBe(view.messages[0]?.seq);
      // The messages elsewhere are the log's, oldest first, none of the checkpoint's.
      const held = new Set(view.messages.map((message) => message.seq));
      const seqs = view.elsewhere.messages.map((entry) => entry.message.seq ?? 0);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs.some((seq) => held.has(seq))).toBe(false);
      expect(seqs.length).toBe(view.elsewhere.count);

      // The checkpoint log's id shows the same thread.
      expect(await readThreadView(store, thread.log)).toEqual(view);
    });

    it('shows an older checkpoint on request, and lists checkpoints, the path and the branches', async () => {
      const store = await stores.open();
      const thread = await buildForkedThread(store);
      const older = (await readThreadView(store, thread.conversation, {
        checkpointId: thread.firstBranch.checkpointId,
        checkpoints: 100,
      })) as ThreadView;
      expect(older.messages.map(asLangChain)).toEqual(fromGraph(thread.firstBranch.messages));
      expect(older.checkpoint).toMatchObject({ id: thread.firstBranch.checkpointId, current: true, tip: true });
      expect(older.latest).toBe(thread.state.checkpointId);
      expect(older.path).toContain(thread.forkPoint.checkpointId);
      expect(older.pathComplete).toBe(true);

      const fork = (await readThreadView(store, thread.conversation, {
        checkpointId: thread.forkPoint.checkpointId,
      })) as ThreadView;
      expect(fork.messages.map(asLangChain)).toEqual(fromGraph(thread.forkPoint.messages));
      expect(fork.checkpoint).toMatchObject({ tip: false, messageCount: 2 });

      const current = (await readThreadView(store, thread.conversation, { checkpoints: 100 })) as ThreadView;
      expect(current.checkpoints).toHaveLength(thread.checkpointCount);
      expect(current.moreCheckpoints).toBe(false);
      const ids = current.checkpoints.map((checkpoint) => checkpoint.id);
      expect(ids).toEqual([...ids].sort().reverse());
      expect(current.checkpoints[0]).toMatchObject({ id: thread.state.checkpointId, current: true });
      // Two branches end: the current one and the one the fork left.
      const tips = current.checkpoints.filter((checkpoint) => checkpoint.tip).map((checkpoint) => checkpoint.id);
      expect(tips).toEqual([thread.state.checkpointId, thread.firstBranch.checkpointId]);
      const left = current.checkpoints.find((checkpoint) => checkpoint.id === thread.firstBranch.checkpointId);
      expect(left).toMatchObject({ onPath: false, current: false, messageCount: 6 });
      expect(current.checkpoints.find((c) => c.id === thread.forkPoint.checkpointId)).toMatchObject({ onPath: true });
      // LangGraph's metadata, read without LangGraph: the edit is an `update`, each checkpoint has its step.
      expect(current.checkpoints.map((checkpoint) => checkpoint.source)).toContain('update');
      expect(current.checkpoints.every((checkpoint) => typeof checkpoint.step === 'number')).toBe(true);
      expect(current.path.length).toBe(current.checkpoints.filter((c) => c.onPath).length - 1);

      const bounded = (await readThreadView(store, thread.conversation, {
        checkpoints: 3,
        elsewhere: 2,
        tail: 2,
      })) as ThreadView;
      expect(bounded.checkpoints.map((checkpoint) => checkpoint.id)).toEqual(ids.slice(0, 3));
      expect(bounded.moreCheckpoints).toBe(true);
      expect(bounded.messages.map(asLangChain)).toEqual(fromGraph(thread.state.messages.slice(-2)));
      expect(bounded.messageCount).toBe(6);
      expect(bounded.elsewhere.messages.map((entry) => entry.message.seq)).toEqual(
        current.elsewhere.messages.slice(-2).map((entry) => entry.message.seq),
      );
      expect(bounded.elsewhere.count).toBe(current.elsewhere.count);
    });

    it('is undefined for other sessions, NOT_FOUND for what is not there, CORRUPT naming a damaged log', async () => {
      const store = await stores.open();
      const thread = await buildForkedThread(store);
      await store.save(Session.create({ id: 'plain' }).append(Message.user('hello')));
      expect(await readThreadView(store, 'plain')).toBeUndefined();
      await expect(readThreadView(store, 'nothing-here')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(
        readThreadView(store, thread.conversation, { checkpointId: '1f000000-0000-6000-8000-000000000000' }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });

      // A thread with its sessions made and no checkpoint yet shows nothing, and says so.
      const saver = thread.saver;
      await saver.putWrites(
        { configurable: { thread_id: 'empty', checkpoint_ns: '', checkpoint_id: 'none' } },
        [],
        'task-1',
      );
      const empty = (await readThreadView(store, saver.sessionsOf('empty').conversation)) as ThreadView;
      expect(empty).toMatchObject({ threadId: 'empty', messages: [], checkpoints: [], messageCount: 0 });
      expect(empty.checkpoint).toBeUndefined();

      // A damaged record (a log entry whose checkpoint record is not one) is CORRUPT, naming the log.
      await store.append(thread.log, [
        Message.create({ role: 'system', category: 'context', content: 'x', metadata: { checkpoint: { id: 7 } } }),
      ]);
      await expect(readThreadView(store, thread.conversation)).rejects.toMatchObject({
        code: 'CORRUPT',
        message: expect.stringContaining(thread.log),
      });
    });

    it('reads a graph that goes on after the view as the graph does', async () => {
      const store = await stores.open();
      const thread = await buildForkedThread(store);
      const graph = echoGraph(thread.saver);
      const config = { configurable: { thread_id: FORKED_THREAD } };
      await graph.invoke({ messages: [] }, config);
      const state = await graph.getState(config);
      const view = (await readThreadView(store, thread.conversation)) as ThreadView;
      expect(view.messages.map(asLangChain)).toEqual(fromGraph(state.values.messages as BaseMessage[]));
    });
  },
  'lgview',
);
