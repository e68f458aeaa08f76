/**
 * `GET /sessions/{id}/thread` over real HTTP on a SQLite store: a LangGraph thread built with
 * LangGraph's own APIs (turns, a fork from an earlier checkpoint, an edit by message id) is
 * answered as `graph.getState` holds it, at its newest checkpoint or at one asked for, with its
 * checkpoints and the conversation's other messages; other sessions answer without a thread;
 * other tenants get 404.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionThread } from '../../src/server/api-types.js';
import { toLangChainSerialized } from '../../src/interchange/langgraph/messages.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { openStore } from '../../src/stores/open-store.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { buildForkedThread, type ForkedThread } from '../adapters/langgraph/forked-thread.js';
import { startTestServer, type TestServer } from './server-harness.js';

let dir = '';
let store: SessionStore;
let server: TestServer;
let thread: ForkedThread;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-thread-route-'));
  store = await openStore(`sqlite:${join(dir, 'graph.db')}`);
  const view = tenantStore(store, { tenant: 'tenant-a' });
  thread = await buildForkedThread(view);
  await view.save(Session.create({ id: 'plain' }).append(Message.user('hello')));
  server = await startTestServer(store);
}, 60_000);

afterAll(async () => {
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string, key?: string) => server.call('GET', path, { key: key ?? server.keys.adminA });

function asGraph(messages: readonly BaseMessage[]): Array<{ id: unknown; content: unknown }> {
  return messages.map((message) => ({ id: message.id, content: message.content }));
}

/** The LangChain id and content of each message as the API gives it: what LangGraph would revive. */
function asStored(
  messages: NonNullable<SessionThread['thread']>['messages'],
): Array<{ id: unknown; content: unknown }> {
  return messages.map((message) => {
    const { kwargs } = toLangChainSerialized(Message.create(message as Parameters<typeof Message.create>[0])) as {
      kwargs: { id?: unknown; content?: unknown };
    };
    return { id: kwargs.id, content: kwargs.content };
  });
}

describe('GET /sessions/{id}/thread', () => {
  it('answers the thread at its newest checkpoint as getState holds it, with what the log holds beside', async () => {
    const answer = await get(`/sessions/${thread.conversation}/thread`);
    expect(answer.status).toBe(200);
    const body = answer.json as SessionThread;
    const view = body.thread;
    expect(body.id).toBe(thread.conversation);
    expect(view).toBeDefined();
    if (view === undefined) return;
    expect(asStored(view.messages)).toEqual(asGraph(thread.state.messages));
    expect(view).toMatchObject({
      threadId: 'forked-1',
      checkpoint: { id: thread.state.checkpointId, current: true, tip: true },
      latest: thread.state.checkpointId,
      messageCount: 6,
      logCount: 11,
      counter: 'estimate',
    });
    expect(view.tokenCounts).toHaveLength(6);
    expect(view.elsewhere.count).toBe(5);
    expect(view.elsewhere.messages.map((entry) => [entry.message.content, entry.kind])).toEqual([
      ['Plan a trip to Lisbon', 'replaced'],
      ['Three days in May', 'other'],
      ['You said: Three days in May', 'other'],
      ['Add a day trip to Sintra', 'other'],
      ['You said: Add a day trip to Sintra', 'other'],
    ]);
    expect(view.elsewhere.messages[0]?.now).toBe(view.messages[0]?.seq);
    const tips = view.checkpoints.filter((checkpoint) => checkpoint.tip).map((checkpoint) => checkpoint.id);
    expect(tips).toEqual([thread.state.checkpointId, thread.firstBranch.checkpointId]);

    // The checkpoint log's id answers the same thread.
    const viaLog = await get(`/sessions/${thread.log}/thread`);
    expect((viaLog.json as SessionThread).thread).toEqual(view);
  });

  it('answers an older checkpoint, and bounds what it lists', async () => {
    const older = await get(`/sessions/${thread.conversation}/thread?checkpoint=${thread.firstBranch.checkpointId}`);
    expect(older.status).toBe(200);
    const view = (older.json as SessionThread).thread;
    expect(asStored(view?.messages ?? [])).toEqual(asGraph(thread.firstBranch.messages));
    expect(view?.checkpoint?.id).toBe(thread.firstBranch.checkpointId);
    expect(view?.latest).toBe(thread.state.checkpointId);

    const bounded = await get(`/sessions/${thread.conversation}/thread?limit=2&checkpoints=3&elsewhere=1`);
    const small = (bounded.json as SessionThread).thread;
    expect(asStored(small?.messages ?? [])).toEqual(asGraph(thread.state.messages.slice(-2)));
    expect(small).toMatchObject({ messageCount: 6, moreCheckpoints: true });
    expect(small?.checkpoints).toHaveLength(3);
    expect(small?.elsewhere.messages.map((entry) => entry.message.content)).toEqual([
      'You said: Add a day trip to Sintra',
    ]);
  });

  it('answers other sessions without a thread, and 404 or 400 where it must', async () => {
    const plain = await get('/sessions/plain/thread');
    expect(plain.status).toBe(200);
    expect(plain.json).toEqual({ id: 'plain' });
    expect((await get('/sessions/nothing/thread')).status).toBe(404);
    const unknown = await get(`/sessions/${thread.conversation}/thread?checkpoint=no-such-checkpoint`);
    expect(unknown.status).toBe(404);
    expect((unknown.json as { code: string }).code).toBe('NOT_FOUND');
    expect((await get(`/sessions/${thread.conversation}/thread?limit=0`)).status).toBe(400);
    // Another tenant's key sees no such session, by either of the thread's ids.
    for (const id of [thread.conversation, thread.log, `tenant-a.${thread.conversation}`])
      expect((await get(`/sessions/${id}/thread`, server.keys.adminB)).status).toBe(404);
  });
});
