/**
 * Stores and sessions for the operations tests: every built-in store that runs here without a
 * server (memory, file, SQLite), each in its own temporary place.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import type { SessionStore } from '../../src/store/session-store-types.js';

/** Temporary directories made by `tempDir`, for `cleanup`. */
const made: string[] = [];

/** A new temporary directory, removed by `cleanup`. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chatstate-ops-'));
  made.push(dir);
  return dir;
}

/** Removes every temporary directory made so far. */
export async function cleanup(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** The URL of a new, empty store of `kind`. */
export async function storeUrl(kind: 'memory' | 'file' | 'sqlite'): Promise<string> {
  if (kind === 'memory') return 'memory:';
  const dir = await tempDir();
  return kind === 'file' ? `file:${dir}` : `sqlite:${join(dir, 'sessions.db')}`;
}

/** A new, empty store of `kind`. */
export async function newStore(kind: 'memory' | 'file' | 'sqlite'): Promise<SessionStore> {
  return openStore(await storeUrl(kind));
}

/** A session with a tool exchange, owners, variables and metadata: number `n` of a set. */
export function sampleSession(n: number, messages = 4): Session {
  const parts: Message[] = [Message.system('Be brief.')];
  for (let i = 0; parts.length < messages; i += 1) {
    parts.push(Message.user(`question ${n}.${i}`));
    if (i % 2 === 0 && parts.length + 3 <= messages) {
      parts.push(Message.assistant('', { toolCalls: [{ id: `call-${n}-${i}`, name: 'lookup', arguments: { n } }] }));
      parts.push(Message.tool(`call-${n}-${i}`, `result ${n}.${i}`));
    }
    parts.push(Message.assistant(`answer ${n}.${i}`));
  }
  return Session.create({
    id: `s-${String(n).padStart(4, '0')}`,
    userId: `user-${n % 3}`,
    agentId: 'helper',
    messages: parts.slice(0, Math.max(messages, 2)),
    variables: { n, tags: ['a', 'b'] },
    metadata: { title: `Session ${n}`, nested: { deep: [1, { x: null }] } },
  });
}

/** Saves `count` sample sessions with values in every scope they own, and an app value. */
export async function fill(store: SessionStore, count: number, messages = 4): Promise<void> {
  for (let n = 0; n < count; n += 1) {
    const session = await store.save(sampleSession(n, messages));
    await store.values.set({ scope: 'session', sessionId: session.id }, { embedding: [n, n + 1] });
    await store.values.set({ scope: 'user', userId: session.userId as string }, { name: `User ${n % 3}` });
    await store.values.set({ scope: 'agent', agentId: 'helper', userId: session.userId as string }, { style: 'terse' });
  }
  await store.values.set({ scope: 'app' }, { motd: 'hello' });
}

/** Collects an async iterable. */
/** Export lines as text, each one line with its newline taken off (and checked). */
export async function exportedLines(lines: AsyncIterable<Uint8Array>): Promise<string[]> {
  const texts: string[] = [];
  for await (const line of lines) {
    const text = new TextDecoder().decode(line);
    if (!text.endsWith('\n') || text.indexOf('\n') !== text.length - 1)
      throw new Error(`not one line: ${text.slice(0, 80)}`);
    texts.push(text.slice(0, -1));
  }
  return texts;
}

export { collect } from '../support/async-iterables.js';
