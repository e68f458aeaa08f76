/**
 * The remote store (`http:`) against the conformance kit, twice: over an in-process server
 * (`startServer`, i.e. `createServerApp` on loopback) in front of a memory store — the store
 * options a spec asks for (a key, a fake clock, a token counter) go to the store under the server,
 * where they act — and over a real `chatstate serve` child process, a fresh tenant per test (the
 * specs that need options inside the served process skip there, with the reason). Then the
 * outage: the server killed under the store is `UNAVAILABLE`, and the same store object works
 * again once a server is back on the same port over the same data.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { KeyRing, newKey } from '../../src/server/auth/api-keys.js';
import { startServer, type RunningServer } from '../../src/server/node.js';
import { Session } from '../../src/session/session.js';
import type { StoreDriver } from '../../src/store/driver-types.js';
import { createSessionStore, type SessionStoreOptions } from '../../src/store/session-store.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { httpStore, type HttpStoreOptions } from '../../src/stores/http/index.js';
import { fileStore } from '../../src/stores/file/index.js';
import { memoryDriver } from '../../src/stores/memory.js';
import { openStore } from '../../src/stores/open-store.js';
import { runStoreConformance, type SkipKey } from '../../src/testing/index.js';
import { BUILT_IN_STORES } from '../support/built-in-stores.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { wrappedStore } from '../support/wrapped-store.js';

/** One admin key of one tenant for every in-process server: child processes of the kit open the store with it. */
const ADMIN = newKey({ tenant: 'acme', role: 'admin' });

/** A server in front of a core store over `driver`. */
async function serverOver(driver: StoreDriver, options: SessionStoreOptions = {}, port = 0) {
  const backend = createSessionStore(driver, options);
  const server = await startServer({
    store: backend,
    port,
    keys: new KeyRing([ADMIN.entry]),
    web: false,
    log: () => undefined,
  });
  return { backend, server };
}

/** What each store of the in-process config stands on. */
interface Stand {
  readonly driver: StoreDriver;
  readonly backend: SessionStore;
  readonly server: RunningServer;
}

const stands = new WeakMap<SessionStore, Stand>();

function standOf(store: SessionStore): Stand {
  const stand = stands.get(store);
  if (stand === undefined) throw new Error('not a store of this suite');
  return stand;
}

async function remoteOver(driver: StoreDriver, options?: SessionStoreOptions): Promise<SessionStore> {
  const { backend, server } = await serverOver(driver, options);
  const store = httpStore(server.url, { apiKey: ADMIN.secret, timeoutMs: 20_000 });
  stands.set(store, { driver, backend, server });
  return store;
}

/** Closes a store of this suite and what it stands on. */
async function teardown(store: SessionStore): Promise<void> {
  const { server, backend } = standOf(store);
  await store.close();
  await server.close();
  await backend.close();
}

const clientOptions: HttpStoreOptions = { apiKey: ADMIN.secret };

/** The server's purge takes no prefix: the http store refuses one (see the test below). */
const NO_PURGE_PREFIX = 'the server API purges every expired session of the key, not by idPrefix (UNSUPPORTED)';
const purgeSkips: Partial<Record<SkipKey, string>> = {
  'purge > purgeExpired({ idPrefix }) removes only the expired sessions under the prefix': NO_PURGE_PREFIX,
  'purge > a session saved again after it expired, before the purge, is kept with what it was saved with':
    NO_PURGE_PREFIX,
};

runStoreConformance({
  name: 'http (in-process server over memory)',
  create: (options) => remoteOver(memoryDriver(), options),
  destroy: teardown,
  skip: purgeSkips,
  async reopen(store, options) {
    // Another server over the same data, with its own store options (other keys): as a restart would.
    const second = await remoteOver(standOf(store).driver, options);
    return wrappedStore(second, { close: () => teardown(second) });
  },
  crossProcess: { url: (store) => standOf(store).server.url, register: BUILT_IN_STORES, options: clientOptions },
});

// ---- Against a real `chatstate serve` ----------------------------------------------------------

/** Tenants (each with an admin key) made for the child: every store of the suite gets a fresh one. */
const CHILD_TENANTS = 400;

let child: ServeProcess | undefined;
let childDir = '';
const childKeys: string[] = [];

beforeAll(async () => {
  childDir = await mkdtemp(join(tmpdir(), 'chatstate-http-store-'));
  const made = Array.from({ length: CHILD_TENANTS }, (_, i) =>
    newKey({ tenant: `t${i}`, role: 'admin', id: `admin-${i}` }),
  );
  childKeys.push(...made.map((key) => key.secret));
  const keyFile = join(childDir, 'keys.json');
  await writeFile(keyFile, JSON.stringify({ keys: made.map((key) => key.entry) }), { mode: 0o600 });
  child = await startServe(['--store', 'memory:', '--keys', keyFile, '--no-web']);
}, 600_000);

afterAll(async () => {
  await child?.stop();
  if (childDir !== '') await rm(childDir, { recursive: true, force: true });
});

const childKeyOf = new WeakMap<SessionStore, string>();

/** Specs that need store options inside the served process, which a test cannot give a running child. */
const NEEDS_OPTIONS = 'needs store options (a key, a fake clock, a token counter) inside the served process';

const childSkips: Partial<Record<SkipKey, string>> = {
  'replace-tail > sealed with the owner’s key: an encrypted store with per-user keys reads the new tail back':
    NEEDS_OPTIONS,
  encryption: NEEDS_OPTIONS,
  'user-keys': NEEDS_OPTIONS,
  ttl: NEEDS_OPTIONS,
  'marks > leave out a session once it has expired': NEEDS_OPTIONS,
  'kinds > purgeExpired and marks still see internal sessions': NEEDS_OPTIONS,
  'read-at > leaves out a session once it has expired': NEEDS_OPTIONS,
  'read-at > reads through a store key and through per-user keys': NEEDS_OPTIONS,
  'read-at > fails as readMessages does on a session the store has no key for': NEEDS_OPTIONS,
  'list > rows are sorted by last activity, newest first, and an append counts as activity': NEEDS_OPTIONS,
  'list > summary(id) is the session’s list row without reading its messages; undefined when gone or expired':
    NEEDS_OPTIONS,
  'list > a row has the title, message count, token total, version, owners and times': NEEDS_OPTIONS,
  'list > limit and offset page through the rows without gaps or repeats': NEEDS_OPTIONS,
  'list > expired: true lists only the expired sessions a purge has not removed, and none after it': NEEDS_OPTIONS,
  'values > purgeExpired deletes the values of the sessions it removes': NEEDS_OPTIONS,
  'values > with a key, values round trip; without it, or with another, reads fail with CORRUPT': NEEDS_OPTIONS,
  'values > with a key, no value reaches the store directory in the clear': NEEDS_OPTIONS,
  'values > a sealed value changed on disk fails with CORRUPT': NEEDS_OPTIONS,
  'append-state > the state survives a reopen, encrypted or not': NEEDS_OPTIONS,
  'titles > a kept title is sealed again with the current key: after a rotation and a save, the new key alone reads it':
    NEEDS_OPTIONS,
};

runStoreConformance({
  name: 'http (chatstate serve child process)',
  async create(options) {
    if (options !== undefined && Object.keys(options).length > 0)
      throw new Error(`the child server takes no store options per test: ${Object.keys(options).join(', ')}`);
    const key = childKeys.shift();
    if (key === undefined || child === undefined) throw new Error('no fresh tenant left for the child server');
    const store = httpStore(child.url, { apiKey: key, timeoutMs: 20_000 });
    childKeyOf.set(store, key);
    return store;
  },
  async reopen(store, options) {
    if (options !== undefined && Object.keys(options).length > 0)
      throw new Error('the child server takes no store options per test');
    const key = childKeyOf.get(store);
    if (key === undefined || child === undefined) throw new Error('not a store of this suite');
    return httpStore(child.url, { apiKey: key, timeoutMs: 20_000 });
  },
  skip: {
    ...childSkips,
    ...purgeSkips,
    'cross-process': 'runs against the in-process server above (one key per test here, not one per URL)',
  },
});

// ---- Outage and resume -------------------------------------------------------------------------

describe('http store: outage and resume', () => {
  it('a dead server is UNAVAILABLE (retryable) on every call; restarted on the same port over the same files, the same store works again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatstate-http-resume-'));
    /** A server over the file store in `dir`, as a restarted `chatstate serve --store file:DIR` would be. */
    const serve = async (port = 0) => {
      const backend = fileStore(dir);
      const server = await startServer({
        store: backend,
        port,
        keys: new KeyRing([ADMIN.entry]),
        web: false,
        log: () => undefined,
      });
      return { backend, server };
    };
    const first = await serve();
    const port = Number(new URL(first.server.url).port);
    const store = httpStore(first.server.url, { apiKey: ADMIN.secret, timeoutMs: 5_000 });
    try {
      const saved = await store.save(
        Session.create({ id: 'resume', messages: [Message.user('before', { id: 'm1' })] }),
      );
      await first.server.close();
      await first.backend.close();
      const pending = Message.user('during', { id: 'm2' });
      const calls: Record<string, () => Promise<unknown>> = {
        load: () => store.load('resume'),
        append: () => store.append('resume', [pending]),
        save: () => store.save(saved),
        list: () => store.list(),
        ping: () => store.ping(),
        'values.set': () => store.values.set({ scope: 'app' }, { k: 1 }),
      };
      for (const [method, call] of Object.entries(calls)) {
        const failure = await call().then(
          () => new Error(`${method} succeeded with the server down`),
          (error: unknown) => error,
        );
        expect(ChatstateError.hasCode(failure, 'UNAVAILABLE'), `${method}: ${String(failure)}`).toBe(true);
        expect((failure as ChatstateError).details).toMatchObject({ retryable: true, store: store.name });
        expect((failure as Error).message).toContain(store.name);
      }
      // Refused before anything was sent: a write that was not applied says so.
      const refused: unknown = await store.append('resume', [pending]).catch((error: unknown) => error);
      expect((refused as ChatstateError).details).toMatchObject({ reason: 'CONNECTION', outcome: 'not-applied' });

      const second = await serve(port);
      try {
        // The retry of the append that failed lands once; a second retry adds nothing.
        const retried = await store.append('resume', [pending]);
        expect(retried.appended.map((message) => message.id)).toEqual(['m2']);
        expect((await store.append('resume', [pending])).duplicates).toEqual(['m2']);
        expect((await store.load('resume')).messages.map((message) => message.content)).toEqual(['before', 'during']);
        await store.ping();
      } finally {
        await second.server.close();
        await second.backend.close();
      }
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a request past its deadline is UNAVAILABLE with reason TIMEOUT', async () => {
    // A listener that accepts connections and never answers.
    const { createServer } = await import('node:net');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const store = httpStore(`http://127.0.0.1:${port}`, { timeoutMs: 200 });
    try {
      await expect(store.list()).rejects.toMatchObject({ code: 'UNAVAILABLE', details: { reason: 'TIMEOUT' } });
    } finally {
      await store.close();
      silent.close();
    }
  });
});

describe('httpStore: URL, key and options', () => {
  it('opens through openStore for http: and https: URLs, named by the URL', async () => {
    const store = await openStore('http://127.0.0.1:9/api/');
    expect(store.name).toBe('http://127.0.0.1:9/api');
    await store.close();
    const secure = await openStore('https://chat.example.com');
    expect(secure.name).toBe('https://chat.example.com');
    await secure.close();
  });

  it('refuses a key (or anything) in the URL, and the options a remote store cannot honour', () => {
    for (const url of [
      'http://127.0.0.1:3000/?key=csk_x',
      'http://user:csk_x@127.0.0.1:3000',
      'http://h/#k',
      'ftp://h',
    ])
      expect(() => httpStore(url)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => httpStore('http://127.0.0.1:3000/?key=csk_secret')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('csk_secret') }),
    );
    for (const options of [
      { encryption: 'a secret of sixteen chars' },
      { now: Date.now },
      { apiKey: 'two words' },
      { timeoutMs: 0 },
    ])
      expect(() => httpStore('http://127.0.0.1:3000', options as HttpStoreOptions)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
  });

  it('takes the key from CHATSTATE_API_KEY, and a wrong key is UNAUTHORIZED', async () => {
    const { server, backend } = await serverOver(memoryDriver());
    const saved = process.env.CHATSTATE_API_KEY;
    try {
      process.env.CHATSTATE_API_KEY = ADMIN.secret;
      const keyed = httpStore(server.url);
      await keyed.save(Session.create({ id: 'by-env' }));
      expect((await keyed.list()).map((row) => row.id)).toEqual(['by-env']);
      await keyed.close();
      const wrong = httpStore(server.url, { apiKey: 'csk_not_a_key' });
      await expect(wrong.list()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      await wrong.close();
    } finally {
      if (saved === undefined) delete process.env.CHATSTATE_API_KEY;
      else process.env.CHATSTATE_API_KEY = saved;
      await server.close();
      await backend.close();
    }
  });

  it('purgeExpired refuses an idPrefix (UNSUPPORTED) and purges nothing; without one it purges every expired session', async () => {
    const { server, backend } = await serverOver(memoryDriver());
    const store = httpStore(server.url, { apiKey: ADMIN.secret });
    try {
      await store.save(Session.create({ id: 'a.old' }), { ttlMs: 1 });
      await store.save(Session.create({ id: 'b.old' }), { ttlMs: 1 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(store.purgeExpired({ idPrefix: 'a.' })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
      await expect(store.purgeExpired({ idPrefix: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect((await store.list({ expired: true })).map((row) => row.id).sort()).toEqual(['a.old', 'b.old']);
      expect(await store.purgeExpired()).toBe(2);
    } finally {
      await store.close();
      await server.close();
      await backend.close();
    }
  });

  it('a base URL that is not the API fails instead of reading as an empty store', async () => {
    const { server, backend } = await serverOver(memoryDriver());
    const store = httpStore(`${server.url}/not-the-api`, { apiKey: ADMIN.secret });
    try {
      await expect(store.get('anything')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(store.list()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await store.close();
      await server.close();
      await backend.close();
    }
  });
});
