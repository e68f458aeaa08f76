/**
 * Concurrent appends from several processes on one session: none lost, none duplicated, and a
 * compare-and-append race across processes with exactly one winner.
 * @module
 */
import { expect } from 'vitest';
import { Session } from '../../session/session.js';
import { expectExactlyOnce, freshId } from '../fixtures.js';
import { runChildren, type ChildAppend, type ChildPlan } from '../processes.js';
import type { ConformanceSuite } from '../suite.js';

const WRITERS = 4;
const APPENDS = 50;
const options = { needs: ['crossProcess'], timeoutMs: 180_000 } as const;

/** Registers the cross-process spec. */
export function crossProcessSpec(suite: ConformanceSuite): void {
  suite.describe('cross-process', 'concurrent appends from several processes', (spec) => {
    spec.it(
      `${WRITERS} processes × ${APPENDS} appends on one session all land exactly once, numbered 1..${WRITERS * APPENDS}`,
      async () => {
        const store = await spec.open();
        const saved = await store.save(Session.create({ id: freshId() }));
        const plan = (writer: number): ChildPlan => ({
          ...spec.crossProcessOf(store),
          sessionId: saved.id,
          appends: Array.from({ length: APPENDS }, (_, index): ChildAppend => ({ ids: [`w${writer}-${index}`] })),
        });
        const reports = await runChildren(Array.from({ length: WRITERS }, (_, writer) => plan(writer)));
        for (const [writer, report] of reports.entries()) {
          expect(report.outcomes.flatMap((outcome) => outcome.appended)).toEqual(
            Array.from({ length: APPENDS }, (_, index) => `w${writer}-${index}`),
          );
        }
        const ids = Array.from({ length: WRITERS }, (_, writer) =>
          Array.from({ length: APPENDS }, (_, index) => `w${writer}-${index}`),
        ).flat();
        await expectExactlyOnce(store, saved.id, ids);
        // Each writer's own appends keep their order.
        const loaded = await store.load(saved.id);
        for (let writer = 0; writer < WRITERS; writer++) {
          const mine = loaded.messages
            .filter((message) => message.id.startsWith(`w${writer}-`))
            .map((message) => message.id);
          expect(mine).toEqual(Array.from({ length: APPENDS }, (_, index) => `w${writer}-${index}`));
        }
        expect(loaded.version).toBe(saved.version + WRITERS * APPENDS);
        expect((await store.list()).find((row) => row.id === saved.id)?.messageCount).toBe(WRITERS * APPENDS);
      },
      options,
    );

    spec.it(
      `${WRITERS} processes retrying the same 20 messages store each once`,
      async () => {
        const store = await spec.open();
        const saved = await store.save(Session.create({ id: freshId() }));
        const ids = Array.from({ length: 20 }, (_, index) => `shared-${index}`);
        const reports = await runChildren(
          Array.from({ length: WRITERS }, (): ChildPlan => ({
            ...spec.crossProcessOf(store),
            sessionId: saved.id,
            appends: ids.map((id) => ({ ids: [id] })),
          })),
        );
        const appended = reports.flatMap((report) => report.outcomes.flatMap((outcome) => outcome.appended));
        const duplicates = reports.flatMap((report) => report.outcomes.flatMap((outcome) => outcome.duplicates));
        expect(appended.sort()).toEqual([...ids].sort());
        expect(duplicates).toHaveLength(ids.length * (WRITERS - 1));
        await expectExactlyOnce(store, saved.id, ids);
      },
      options,
    );

    spec.it(
      `${WRITERS} processes appending with the same expectedVersion: exactly one lands, the others get CONFLICT`,
      async () => {
        const store = await spec.open();
        const saved = await store.save(Session.create({ id: freshId() }));
        const reports = await runChildren(
          Array.from({ length: WRITERS }, (_, writer): ChildPlan => ({
            ...spec.crossProcessOf(store),
            sessionId: saved.id,
            appends: [{ ids: [`racer-${writer}`], expectedVersion: saved.version }],
          })),
        );
        const outcomes = reports.flatMap((report) => report.outcomes);
        expect(outcomes.filter((outcome) => outcome.conflict)).toHaveLength(WRITERS - 1);
        const winners = outcomes.flatMap((outcome) => outcome.appended);
        expect(winners).toHaveLength(1);
        await expectExactlyOnce(store, saved.id, winners);
        expect((await store.load(saved.id)).version).toBe(saved.version + 1);
      },
      options,
    );

    spec.it(
      'a session written by one process is read whole by another',
      async () => {
        const store = await spec.open();
        const saved = await store.save(Session.create({ id: freshId() }));
        await runChildren([
          { ...spec.crossProcessOf(store), sessionId: saved.id, appends: [{ ids: ['from-child-1', 'from-child-2'] }] },
        ]);
        const loaded = await store.load(saved.id);
        expect(loaded.messages.map((message) => [message.id, message.seq])).toEqual([
          ['from-child-1', 1],
          ['from-child-2', 2],
        ]);
        expect(await store.readMessages(saved.id, { afterSeq: 1 })).toHaveLength(1);
      },
      options,
    );
  });
}
