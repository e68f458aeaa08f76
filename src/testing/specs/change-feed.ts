/**
 * `change-feed`: `store.changes` tells every committed change of the store's own writes (append,
 * replace, delete, with the version after it), nothing for a write that changed nothing, and
 * stops at `unsubscribe`; a store whose feed covers every writer also tells the changes made
 * through a second store over the same data (for Postgres and Redis, another connection).
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { ChangeEvent, ChangeFeed, SessionChangedEvent } from '../../store/change-types.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** How long a change made elsewhere may take to be told (a notification crossing a server). */
const REMOTE_MS = 10_000;

function feedOf(store: SessionStore): ChangeFeed {
  const feed = store.changes;
  if (feed === undefined) throw new Error(`${store.name}: the store has no change feed (store.changes)`);
  return feed;
}

/** The events a feed tells, kept in order, with a bounded wait for one that matches. */
class Recorder {
  readonly events: ChangeEvent[] = [];
  private readonly waiters = new Set<() => void>();
  readonly stop: () => void;

  constructor(feed: ChangeFeed) {
    this.stop = feed.subscribe((event) => {
      this.events.push(event);
      for (const wake of this.waiters) wake();
    });
  }

  /** The changes told so far, as `kind id version`. */
  changes(): string[] {
    return this.events
      .filter((event): event is SessionChangedEvent => event.type === 'change')
      .map((event) => `${event.kind} ${event.id} ${event.kind === 'delete' ? '' : event.version}`.trim());
  }

  /** Resolves once `condition()` holds; fails after `ms`. */
  async until(condition: () => boolean, ms: number, what: string): Promise<void> {
    const end = Date.now() + ms;
    while (!condition()) {
      const left = end - Date.now();
      if (left <= 0) throw new Error(`not told within ${ms} ms: ${what}; told: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 100));
        this.waiters.add(done);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
      });
      this.waiters.clear();
    }
  }
}

/** Registers the change-feed spec. */
export function changeFeedSpec(suite: ConformanceSuite): void {
  suite.describe('change-feed', 'change feed', (spec) => {
    spec.it('the feed declares the coverage the configuration names', async () => {
      const store = await spec.open();
      expect(feedOf(store).coverage).toBe(spec.config.capabilities?.changeFeed ?? 'this-store');
    });

    spec.it("the store's own save, append and delete are told in order, with the version after each", async () => {
      const store = await spec.open();
      const recorder = new Recorder(feedOf(store));
      try {
        const id = freshId();
        const saved = await store.save(Session.create({ id, messages: conversation(2) }));
        const appended = await store.append(id, [Message.user('more', { id: 'more' })]);
        // Told before the write resolves: a cache that heard it can never be behind the store.
        expect(recorder.changes()).toEqual([`replace ${id} ${saved.version}`, `append ${id} ${appended.version}`]);
        await store.delete(id);
        expect(recorder.changes()).toEqual([
          `replace ${id} ${saved.version}`,
          `append ${id} ${appended.version}`,
          `delete ${id}`,
        ]);
      } finally {
        recorder.stop();
      }
    });

    spec.it('a write that changed nothing tells nothing; unsubscribe stops the telling', async () => {
      const store = await spec.open();
      const recorder = new Recorder(feedOf(store));
      const id = freshId();
      await store.save(Session.create({ id, messages: conversation(1) }));
      await store.append(id, [Message.user('once', { id: 'once' })]);
      const told = recorder.changes().length;
      // An idempotent retry adds nothing, and a delete of nothing removes nothing.
      await store.append(id, [Message.user('once', { id: 'once' })]);
      expect(await store.delete(freshId())).toBe(false);
      expect(recorder.changes()).toHaveLength(told);
      recorder.stop();
      await store.append(id, [Message.user('unheard', { id: 'unheard' })]);
      expect(recorder.changes()).toHaveLength(told);
    });

    spec.it('subscribing to a closed store is CLOSED', async () => {
      const store = await spec.open();
      await store.close();
      await expectCode(() => feedOf(store).subscribe(() => undefined), 'CLOSED');
    });

    spec.it('a listener that throws does not fail the write, nor keep the others from hearing it', async () => {
      const store = await spec.open();
      const feed = feedOf(store);
      const stopBad = feed.subscribe(() => {
        throw new Error('a buggy listener');
      });
      const recorder = new Recorder(feed);
      const warned: string[] = [];
      const onWarning = (warning: Error): void => void warned.push(warning.message);
      process.on('warning', onWarning);
      try {
        const id = freshId();
        const saved = await store.save(Session.create({ id }));
        expect(recorder.changes()).toEqual([`replace ${id} ${saved.version}`]);
        await new Promise((resolve) => setImmediate(resolve));
        expect(warned.some((message) => message.includes('a buggy listener'))).toBe(true);
      } finally {
        process.off('warning', onWarning);
        stopBad();
        recorder.stop();
      }
    });

    spec.it(
      "each of this store's changes is told once, though the shared feed brings it back too",
      async () => {
        const store = await spec.open();
        const other = await spec.reopen(store);
        const feed = feedOf(store);
        const recorder = new Recorder(feed);
        try {
          await recorder.until(() => feed.state === 'live', REMOTE_MS, 'the feed is live');
          const id = freshId();
          const saved = await store.save(Session.create({ id, messages: conversation(1) }));
          const appended = await store.append(id, [Message.user('mine', { id: 'mine' })]);
          await store.delete(id);
          // A later change by another writer: once it is heard, the echoes of the earlier ones
          // (told in commit order) have arrived too.
          const marker = freshId();
          await other.save(Session.create({ id: marker }));
          await recorder.until(() => recorder.changes().some((told) => told.includes(marker)), REMOTE_MS, 'the marker');
          expect(recorder.changes()).toEqual([
            `replace ${id} ${saved.version}`,
            `append ${id} ${appended.version}`,
            `delete ${id}`,
            `replace ${marker} 1`,
          ]);
        } finally {
          recorder.stop();
        }
      },
      { needs: ['reopen', 'sharedChanges'] },
    );

    spec.it(
      'a change made through a second store over the same data is told, once the feed is live',
      async () => {
        const store = await spec.open();
        const other = await spec.reopen(store);
        const feed = feedOf(store);
        const recorder = new Recorder(feed);
        try {
          await recorder.until(() => feed.state === 'live', REMOTE_MS, 'the feed is live');
          const id = freshId();
          const saved = await other.save(Session.create({ id, userId: 'u-feed', messages: conversation(1) }));
          const appended = await other.append(id, [Message.user('elsewhere', { id: 'elsewhere' })]);
          await other.delete(id);
          await recorder.until(() => recorder.changes().includes(`delete ${id}`), REMOTE_MS, `the delete of ${id}`);
          expect(recorder.changes()).toEqual([
            `replace ${id} ${saved.version}`,
            `append ${id} ${appended.version}`,
            `delete ${id}`,
          ]);
          // Told by whoever knew the owner: never another one.
          for (const event of recorder.events)
            if (event.type === 'change' && event.userId !== undefined) expect(event.userId).toBe('u-feed');
        } finally {
          recorder.stop();
        }
      },
      { needs: ['reopen', 'sharedChanges'] },
    );
  });
}
