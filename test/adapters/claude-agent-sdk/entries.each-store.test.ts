/**
 * What the adapter keeps, on every store: random batches of entries (any JSON, repeated uuids as
 * retries, entries without a uuid) load back deep-equal to what the SDK's `InMemorySessionStore`
 * holds when given each entry once, with the summaries it folds; bad keys and entries are typed
 * errors that store nothing; keys of any shape map to distinct sessions; retention, tenants and
 * encryption hold as for every session of the store.
 */
import { randomUUID } from 'node:crypto';
import { InMemorySessionStore, foldSessionSummary } from '@anthropic-ai/claude-agent-sdk';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  chatstateSessionStore,
  type ClaudeSessionEntry,
  type ClaudeSessionKey,
} from '../../../src/adapters/claude-agent-sdk/index.js';
import { ChatstateError } from '../../../src/errors.js';
import { createSessionStore } from '../../../src/store/session-store.js';
import { memoryDriver } from '../../../src/stores/memory.js';
import { tenantStore } from '../../../src/tenancy/tenant-store.js';
import { rejectionCodeOf } from '../../support/errors.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';

const uuids = Array.from({ length: 6 }, () => randomUUID());

/** An entry as the SDK hands it over: a JSON object with a type, mostly a uuid (from a small pool: repeats are retries). */
const entry: fc.Arbitrary<ClaudeSessionEntry> = fc
  .record(
    {
      type: fc.constantFrom('user', 'assistant', 'system', 'custom-title', 'progress', 'x'),
      uuid: fc.constantFrom(...uuids),
      timestamp: fc.constantFrom('2025-10-01T10:00:00.000Z', 'not a date', '2025-10-01T12:00:00+02:00'),
      message: fc.oneof(
        fc.record({ role: fc.constant('user'), content: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 3 })) }),
        fc.jsonValue({ maxDepth: 4 }),
      ),
      customTitle: fc.string(),
      payload: fc.jsonValue({ maxDepth: 4 }),
    },
    { requiredKeys: ['type'] },
  )
  // What the SDK hands over is JSON (one JSONL line each): its round trip is what must come back.
  .map((value) => JSON.parse(JSON.stringify(value)) as ClaudeSessionEntry);

const scenario = fc.array(
  fc.record({ subagent: fc.boolean(), entries: fc.array(entry, { minLength: 1, maxLength: 5 }) }),
  { minLength: 1, maxLength: 5 },
);

await describeEveryStore(
  'claude-agent-sdk: entries on the store',
  (subject) => {
    const stores = storesOf(subject);

    it('random batches with retried uuids load back as the oracle holds each entry once, with its summary', async () => {
      const store = await stores.open();
      const ours = chatstateSessionStore({ store });
      await fc.assert(
        fc.asyncProperty(scenario, async (appends) => {
          const oracle = new InMemorySessionStore();
          const main: ClaudeSessionKey = { projectKey: 'prop', sessionId: randomUUID() };
          const sub: ClaudeSessionKey = { ...main, subpath: 'subagents/agent-prop' };
          const seen = new Map<string, Set<string>>([
            ['main', new Set()],
            ['sub', new Set()],
          ]);
          for (const { subagent, entries } of appends) {
            const key = subagent ? sub : main;
            await ours.append(key, entries);
            // The oracle stores what it is given: it gets each uuid once (first wins), as the contract asks of us.
            const known = seen.get(subagent ? 'sub' : 'main') as Set<string>;
            const fresh = entries.filter((each) => {
              if (each.uuid === undefined) return true;
              if (known.has(each.uuid)) return false;
              known.add(each.uuid);
              return true;
            });
            if (fresh.length > 0) await oracle.append(key, fresh);
          }
          expect(await ours.load(main)).toEqual(await oracle.load(main));
          expect(await ours.load(sub)).toEqual(await oracle.load(sub));
          expect(await ours.listSubkeys(main)).toEqual(await oracle.listSubkeys(main));
          const summaries = (await ours.listSessionSummaries('prop')).filter((row) => row.sessionId === main.sessionId);
          const expected = (await oracle.listSessionSummaries('prop')).map(({ sessionId, data }) => ({
            sessionId,
            data,
          }));
          expect(summaries.map(({ sessionId, data }) => ({ sessionId, data }))).toEqual(expected);
          await ours.delete(main);
          expect(await ours.load(sub)).toBeNull();
        }),
        { numRuns: subject.name === 'memory' ? 40 : 12 },
      );
      expect(await store.list({ idPrefix: 'claude.', kinds: 'all' })).toEqual([]);
    });

    it('refuses malformed keys and entries with typed errors, storing nothing', async () => {
      const store = await stores.open();
      const ours = chatstateSessionStore({ store });
      const good: ClaudeSessionKey = { projectKey: 'p', sessionId: 's' };
      const valid = { type: 'user', uuid: 'u-1', message: { role: 'user', content: 'hi' } };
      const cyclic: Record<string, unknown> = { type: 'user' };
      cyclic.self = cyclic;
      const badKeys: unknown[] = [
        null,
        'p/s',
        {},
        { projectKey: '', sessionId: 's' },
        { projectKey: 'p', sessionId: 42 },
        { projectKey: 'p', sessionId: 's', subpath: '' },
        { projectKey: 'p', sessionId: 's', subpath: 7 },
        { projectKey: 'p\ud800', sessionId: 's' },
        { projectKey: 'p'.repeat(1025), sessionId: 's' },
        { projectKey: 'p', sessionId: 's'.repeat(5000) },
      ];
      for (const key of badKeys) {
        expect(await rejectionCodeOf(ours.append(key as ClaudeSessionKey, [valid]))).toBe('INVALID_ID');
        expect(await rejectionCodeOf(ours.load(key as ClaudeSessionKey))).toBe('INVALID_ID');
        expect(await rejectionCodeOf(ours.delete(key as ClaudeSessionKey))).toBe('INVALID_ID');
      }
      expect(await rejectionCodeOf(ours.listSessions(''))).toBe('INVALID_ID');
      expect(await rejectionCodeOf(ours.listSessionSummaries(3 as unknown as string))).toBe('INVALID_ID');
      expect(await rejectionCodeOf(ours.listSubkeys({ projectKey: 'p' } as ClaudeSessionKey))).toBe('INVALID_ID');
      const badBatches: [unknown, string][] = [
        [undefined, 'INVALID_ARGUMENT'],
        [valid, 'INVALID_ARGUMENT'],
        [[valid, null], 'INVALID_ARGUMENT'],
        [[valid, 42], 'INVALID_ARGUMENT'],
        [[valid, 'a line'], 'INVALID_ARGUMENT'],
        [[valid, [valid]], 'INVALID_ARGUMENT'],
        [[valid, {}], 'INVALID_ARGUMENT'],
        [[valid, { type: 5 }], 'INVALID_ARGUMENT'],
        [[valid, { type: 'user', uuid: 7 }], 'INVALID_ARGUMENT'],
        [[valid, { type: 'user', uuid: '' }], 'INVALID_ARGUMENT'],
        [[valid, cyclic], 'INVALID_ARGUMENT'],
        [[valid, { type: 'user', count: 10n }], 'INVALID_ARGUMENT'],
        [[valid, { type: 'user', text: 'lone \udc00 half' }], 'INVALID_ARGUMENT'],
        [[valid, { type: 'user', toJSON: () => 'not an object' }], 'INVALID_ARGUMENT'],
        // Past chatstate's largest message (32 Mi characters of JSON).
        [[valid, { type: 'attachment', data: 'x'.repeat(33 * 1024 * 1024) }], 'TOO_LARGE'],
      ];
      for (const [entries, code] of badBatches)
        expect(await rejectionCodeOf(ours.append(good, entries as ClaudeSessionEntry[]))).toBe(code);
      expect(await ours.load(good)).toBeNull();
      expect(await store.list({ kinds: 'all' })).toEqual([]);
      // Nothing at all is a no-op, not a transcript.
      await ours.append(good, []);
      expect(await ours.load(good)).toBeNull();
      expect(() => chatstateSessionStore({ store, sessionPrefix: 'no.dots' })).toThrow(/sessionPrefix/);
      expect(() => chatstateSessionStore({ store, ttlMs: -1 })).toThrow(/ttlMs/);
    });

    it('keeps keys of any shape apart: long, dotted, slashed, unicode and look-alike parts', async () => {
      const store = await stores.open();
      const ours = chatstateSessionStore({ store });
      const long = `/home/someone/${'deep/'.repeat(190)}project`;
      const keys: ClaudeSessionKey[] = [
        { projectKey: long, sessionId: 'a' },
        { projectKey: long, sessionId: 'a', subpath: 'subagents/agent-1' },
        { projectKey: long, sessionId: 'a', subpath: 'subagents/agent-2' },
        { projectKey: long, sessionId: 'a', subpath: 'workflows/run-1/agent-1' },
        { projectKey: long, sessionId: 'a', subpath: 's' },
        { projectKey: long, sessionId: 'a.b' },
        { projectKey: long, sessionId: 'a', subpath: 'b' },
        { projectKey: `${long}x`, sessionId: 'a' },
        { projectKey: 'pr', sessionId: '../..' },
        { projectKey: 'pr', sessionId: '__proto__', subpath: '__proto__' },
        { projectKey: 'pr', sessionId: 'ünï 👍 code', subpath: 'h' },
        { projectKey: 'pr', sessionId: 'rx' },
        { projectKey: 'prx', sessionId: 'x' },
      ];
      for (const [index, key] of keys.entries())
        await ours.append(key, [{ type: 'user', uuid: 'same-uuid', message: { role: 'user', content: `#${index}` } }]);
      for (const [index, key] of keys.entries())
        expect((await ours.load(key))?.map((each) => (each.message as { content: string }).content)).toEqual([
          `#${index}`,
        ]);
      expect(new Set(keys.map((key) => ours.sessionIdOf(key))).size).toBe(keys.length);
      for (const key of keys) expect(ours.sessionIdOf(key).length).toBeLessThanOrEqual(92);
      expect((await ours.listSessions(long)).map((row) => row.sessionId).sort()).toEqual(['a', 'a.b']);
      expect((await ours.listSubkeys({ projectKey: long, sessionId: 'a' })).sort()).toEqual(
        ['b', 's', 'subagents/agent-1', 'subagents/agent-2', 'workflows/run-1/agent-1'].sort(),
      );
      // Sessions with only a subagent transcript are not listed (as in the SDK's own store).
      expect((await ours.listSessions('pr')).map((row) => row.sessionId).sort()).toEqual(['../..', 'rx'].sort());
      expect(await ours.listSubkeys({ projectKey: 'pr', sessionId: '__proto__' })).toEqual(['__proto__']);
      // Every main transcript's summary names its session as the key did.
      expect((await ours.listSessionSummaries('pr')).map((row) => row.sessionId).sort()).toEqual(
        ['../..', 'rx'].sort(),
      );
      expect(await ours.listSubkeys({ projectKey: 'pr', sessionId: 'ünï 👍 code' })).toEqual(['h']);
    });

    it('retention: every session written expires ttlMs after its last write, and appends slide it', async () => {
      const store = await stores.open();
      const ttlMs = 1500;
      const ours = chatstateSessionStore({ store, ttlMs });
      const key = { projectKey: 'ttl', sessionId: 'kept-briefly' };
      const line = (uuid: string) => ({ type: 'user', uuid, message: { role: 'user', content: uuid } });
      await ours.append(key, [line('one')]);
      await ours.append({ ...key, subpath: 'subagents/agent-x' }, [line('sub')]);
      await ours.append(key, [line('two')]);
      const rows = await store.list({ idPrefix: 'claude.', kinds: 'all' }); // the sidecar too
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect(row.expiresAt).toBeDefined();
        expect(Date.parse(row.expiresAt as string) - Date.parse(row.updatedAt)).toBe(ttlMs);
      }
      await new Promise((resolve) => setTimeout(resolve, ttlMs + 300));
      expect(await ours.load(key)).toBeNull();
      expect(await ours.listSessions('ttl')).toEqual([]);
      expect(await ours.listSubkeys(key)).toEqual([]);
      // Written again after it expired: a new transcript, whose summary starts over.
      await ours.append(key, [{ type: 'custom-title', customTitle: 'Second life' }, line('three')]);
      expect((await ours.load(key))?.length).toBe(2);
      const [summary] = await ours.listSessionSummaries('ttl');
      expect(summary?.data).toEqual(
        foldSessionSummary(undefined, key, [{ type: 'custom-title', customTitle: 'Second life' }, line('three')]).data,
      );
    });

    it('works through a tenant view: ids, listings and summaries stay inside the tenant', async () => {
      const shared = await stores.open();
      const acme = chatstateSessionStore({
        store: tenantStore(shared, { tenant: 'acme-corporation-tenant-00000001' }),
      });
      const other = chatstateSessionStore({ store: tenantStore(shared, { tenant: 'other' }) });
      const key = {
        projectKey: '-home-someone-a-rather-long-project-directory',
        sessionId: randomUUID(),
        subpath: 'subagents/agent-a1b2c3d4e5f6a7b8c',
      };
      const main = { projectKey: key.projectKey, sessionId: key.sessionId };
      await acme.append(key, [{ type: 'user', uuid: 'u', message: { role: 'user', content: 'sub' } }]);
      await acme.append(main, [{ type: 'user', uuid: 'u', message: { role: 'user', content: 'main' } }]);
      expect((await acme.listSessions(key.projectKey)).map((row) => row.sessionId)).toEqual([key.sessionId]);
      expect(await acme.listSubkeys(main)).toEqual([key.subpath]);
      expect(await other.load(main)).toBeNull();
      expect(await other.listSessions(key.projectKey)).toEqual([]);
      expect(await other.listSessionSummaries(key.projectKey)).toEqual([]);
      expect((await shared.list()).every((row) => row.id.startsWith('acme-corporation-tenant-00000001.claude.'))).toBe(
        true,
      );
    });

    it.runIf(subject.name === 'memory')('encryption at rest: entries are sealed like every record', async () => {
      const driver = memoryDriver();
      const sealed = createSessionStore(driver, { encryption: 'a secret of sixteen chars' });
      const ours = chatstateSessionStore({ store: sealed });
      const key = { projectKey: 'enc', sessionId: 'secret' };
      const entries = [{ type: 'user', uuid: 'u', message: { role: 'user', content: 'the launch code is 0000' } }];
      await ours.append(key, entries);
      expect(await ours.load(key)).toEqual(entries);
      const without = createSessionStore(driver);
      const error = await without.readMessages(ours.sessionIdOf(key)).catch((caught: unknown) => caught);
      expect(ChatstateError.isInstance(error)).toBe(true);
      await sealed.close();
    });
  },
  'cas',
);
