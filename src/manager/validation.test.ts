import { afterEach, describe, expect, it } from 'vitest';
import { ChatstateError } from '../errors.js';
import { Message, type MessageInput } from '../message/message.js';
import { Session } from '../session/session.js';
import { memoryStore } from '../stores/memory.js';
import type { SessionStore } from '../store/session-store-types.js';
import { SessionManager, type SessionManagerOptions, type SessionUpdater } from './index.js';

const managers: SessionManager[] = [];

afterEach(async () => {
  await Promise.allSettled(managers.splice(0).map((manager) => manager.close()));
});

function setup(): { store: SessionStore; manager: SessionManager } {
  const store = memoryStore();
  const manager = new SessionManager({ store, autoSaveIntervalMs: false, maxMessagesPerSession: 2 });
  managers.push(manager);
  return { store, manager };
}

function constructorCode(options: unknown): string | undefined {
  try {
    managers.push(new SessionManager(options as SessionManagerOptions));
  } catch (error) {
    return ChatstateError.isInstance(error) ? error.code : 'not a ChatstateError';
  }
  return undefined;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return ChatstateError.isInstance(error) ? error.code : 'not a ChatstateError';
  }
  return undefined;
}

const HOSTILE_IDS: unknown[] = [
  '../etc/passwd',
  '/abs/path',
  '..',
  'a/b',
  'a\\b',
  '__proto__',
  'constructor',
  'prototype',
  '',
  ' lead',
  'x'.repeat(129),
  'nul\u0000byte',
  42,
  null,
  undefined,
  {},
];

describe('options', () => {
  const store = memoryStore();
  it.each([
    ['no options', undefined],
    ['null options', null],
    ['no store', {}],
    ['a store without methods', { store: { name: 'fake' } }],
    ['maxMessagesPerSession 0', { store, maxMessagesPerSession: 0 }],
    ['maxMessagesPerSession -1', { store, maxMessagesPerSession: -1 }],
    ['maxMessagesPerSession 1.5', { store, maxMessagesPerSession: 1.5 }],
    ['maxMessagesPerSession NaN', { store, maxMessagesPerSession: Number.NaN }],
    ['maxMessagesPerSession Infinity', { store, maxMessagesPerSession: Number.POSITIVE_INFINITY }],
    ['maxMessagesPerSession as text', { store, maxMessagesPerSession: '10' }],
    ['maxSessionsInMemory 0', { store, maxSessionsInMemory: 0 }],
    ['maxSessionsInMemory -3', { store, maxSessionsInMemory: -3 }],
    ['autoSaveIntervalMs 0', { store, autoSaveIntervalMs: 0 }],
    ['autoSaveIntervalMs -1', { store, autoSaveIntervalMs: -1 }],
    ['autoSaveIntervalMs beyond what a timer honours', { store, autoSaveIntervalMs: 2 ** 31 }],
    ['autoSaveIntervalMs true', { store, autoSaveIntervalMs: true }],
    ['ownsStore as text', { store, ownsStore: 'yes' }],
    ['a compactor without compact', { store, compactor: {} }],
    ['a counter without countMessage', { store, counter: { name: 'x' } }],
  ])('%s is INVALID_ARGUMENT', (_name, options) => {
    expect(constructorCode(options)).toBe('INVALID_ARGUMENT');
  });

  it('accepts the limits at their smallest and auto-save turned off', () => {
    expect(
      constructorCode({ store, maxMessagesPerSession: 1, maxSessionsInMemory: 1, autoSaveIntervalMs: 1 }),
    ).toBeUndefined();
    expect(constructorCode({ store, autoSaveIntervalMs: false })).toBeUndefined();
  });
});

describe('hostile ids are INVALID_ID everywhere', () => {
  it.each(HOSTILE_IDS.map((id) => [JSON.stringify(id) ?? String(id), id]))('%s', async (_name, id) => {
    const { store, manager } = setup();
    const hostile = id as string;
    expect(await codeOf(manager.load(hostile))).toBe('INVALID_ID');
    expect(await codeOf(manager.append(hostile, Message.user('x')))).toBe('INVALID_ID');
    expect(await codeOf(manager.update(hostile, (session) => session))).toBe('INVALID_ID');
    expect(await codeOf(manager.delete(hostile))).toBe('INVALID_ID');
    expect(await codeOf(manager.chainStats(hostile))).toBe('INVALID_ID');
    expect(await codeOf(manager.fork(hostile, { atMessageId: 'm1' }))).toBe('INVALID_ID');
    expect(await codeOf(manager.create({ id: hostile }))).toBe(id === undefined ? undefined : 'INVALID_ID');
    if (typeof id === 'string') {
      expect(await codeOf(manager.save(hostile))).toBe('INVALID_ID');
      expect(await codeOf(manager.continueSession(hostile))).toBe('INVALID_ID');
      const { id: real } = await manager.create();
      const { appended } = await manager.append(real, Message.user('hi'));
      expect(await codeOf(manager.fork(real, { atMessageId: appended[0]?.id as string, id: hostile }))).toBe(
        'INVALID_ID',
      );
    }
    // Nothing but the sessions made above was stored.
    expect((await store.list()).every((row) => row.id.startsWith('ses_'))).toBe(true);
  });
});

describe('invalid arguments', () => {
  it('save and continueSession take a Session or an id, nothing else', async () => {
    const { manager } = setup();
    for (const value of [42, null, {}, { id: 'looks-like-a-session' }]) {
      expect(await codeOf(manager.save(value as unknown as string))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(manager.continueSession(value as unknown as string))).toBe('INVALID_ARGUMENT');
    }
  });

  it('fork needs { atMessageId: string }', async () => {
    const { manager } = setup();
    const { id } = await manager.create();
    for (const options of [undefined, null, {}, { atMessageId: 42 }]) {
      expect(await codeOf(manager.fork(id, options as unknown as { atMessageId: string }))).toBe('INVALID_ARGUMENT');
    }
  });

  it('update needs a function returning a Session with the same id; a bad one changes nothing', async () => {
    const { manager } = setup();
    const { id } = await manager.create();
    expect(await codeOf(manager.update(id, 'not a function' as unknown as SessionUpdater))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(manager.update(id, () => ({ id }) as unknown as Session))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(manager.update(id, () => Session.create({ id: 'someone-else' })))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(manager.update(id, (session) => session.withVariable('__proto__', 1)))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(manager.isDirty(id)).toBe(false);
  });

  it('an invalid message is INVALID_MESSAGE: nothing is stored and nothing is continued', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    await manager.append(id, Message.user('1'), Message.assistant('2'));
    const version = (await store.load(id)).version;
    const bad = [
      { role: 'user', content: '' },
      { role: 'wizard', content: 'x' },
      { role: 'tool', content: 'no call id' },
      null,
    ];
    for (const message of bad) {
      expect(await codeOf(manager.append(id, Message.user('fine'), message as unknown as MessageInput))).toBe(
        'INVALID_MESSAGE',
      );
    }
    expect((await store.load(id)).version).toBe(version);
    expect((await store.list()).map((row) => row.id)).toEqual([id]);
  });

  it('checkBoundary needs a Session', () => {
    const { manager } = setup();
    expect(() => manager.checkBoundary({ messages: [1, 2, 3] } as unknown as Session)).toThrow(
      expect.objectContaining({ code: 'INVALID_SESSION' }),
    );
  });

  it('a continuedTo link that is not an id is CORRUPT for append', async () => {
    const { store, manager } = setup();
    await store.save(Session.create({ id: 'bent', metadata: { continuedTo: '../../outside' } }));
    expect(await codeOf(manager.append('bent', Message.user('x')))).toBe('CORRUPT');
  });
});
