/**
 * `append(id, messages, { state })`: a turn's messages and its state changes (metadata,
 * variables, last usage) land in one atomic commit — together or not at all — and a retry that
 * adds nothing changes nothing.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { AppendOptions, SessionStore } from '../../store/session-store-types.js';
import { conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

type State = NonNullable<AppendOptions['state']>;

const SECRET = 'conformance-append-state-secret-0123';

function stateOf(turn: number): State {
  return {
    metadata: { turn, tags: ['a', { nested: turn }] },
    variables: { plan: `step ${turn}`, count: turn, none: null },
    lastUsage: { inputTokens: 100 * turn, outputTokens: turn, cachedInputTokens: 0, messageCount: 2 * turn },
  };
}

async function started(store: SessionStore): Promise<Session> {
  return store.save(
    Session.create({
      id: freshId(),
      userId: 'user-state',
      messages: conversation(2, 'start'),
      variables: { plan: 'none' },
      metadata: { label: 'kept?' },
    }).withUsage({ inputTokens: 1 }),
  );
}

function expectState(session: Session, state: State): void {
  expect(session.metadata).toEqual(state.metadata);
  expect(session.variables).toEqual(state.variables);
  expect(session.lastUsage).toEqual(state.lastUsage);
}

/** Registers the append-state spec. */
export function appendStateSpec(suite: ConformanceSuite): void {
  suite.describe('append-state', 'append with state', (spec) => {
    spec.it('the state replaces metadata, variables and last usage in the same version as the messages', async () => {
      const store = await spec.open();
      const saved = await started(store);
      const result = await store.append(saved.id, conversation(2, 'turn1'), {
        state: stateOf(1),
        expectedVersion: saved.version,
      });
      expect(result.version).toBe(saved.version + 1);
      const loaded = await store.load(saved.id);
      expect(loaded.version).toBe(result.version);
      expect(loaded.messages.map((message) => message.id)).toEqual(['start-1', 'start-2', 'turn1-1', 'turn1-2']);
      expectState(loaded, stateOf(1));
      // A state without usage clears the old usage; appends without state leave the state alone.
      const { lastUsage: _dropped, ...withoutUsage } = stateOf(2);
      await store.append(saved.id, conversation(1, 'turn2'), { state: withoutUsage });
      await store.append(saved.id, conversation(1, 'turn3'));
      const later = await store.load(saved.id);
      expect(later.lastUsage).toBeUndefined();
      expect(later.variables).toEqual(stateOf(2).variables);
      expect(later.metadata).toEqual(stateOf(2).metadata);
    });

    spec.it('a retry that adds no message leaves the state and the version as they were', async () => {
      const store = await spec.open();
      const saved = await started(store);
      const turn = conversation(2, 'turn1');
      const first = await store.append(saved.id, turn, { state: stateOf(1) });
      const retry = await store.append(saved.id, turn, { state: stateOf(9) });
      expect(retry).toMatchObject({ version: first.version, appended: [], duplicates: ['turn1-1', 'turn1-2'] });
      const loaded = await store.load(saved.id);
      expect(loaded.version).toBe(first.version);
      expectState(loaded, stateOf(1));
      const empty = await store.append(saved.id, [], { state: stateOf(8) });
      expect(empty.version).toBe(first.version);
      expectState(await store.load(saved.id), stateOf(1));
    });

    spec.it('an append that conflicts writes neither its messages nor its state', async () => {
      const store = await spec.open();
      const saved = await started(store);
      await store.append(saved.id, conversation(1, 'other'));
      await expectCode(
        () => store.append(saved.id, conversation(1, 'late'), { state: stateOf(1), expectedVersion: saved.version }),
        'CONFLICT',
      );
      const loaded = await store.load(saved.id);
      expect(loaded.messages.map((message) => message.id)).toEqual(['start-1', 'start-2', 'other-1']);
      expect(loaded.variables).toEqual({ plan: 'none' });
      expect(loaded.metadata).toEqual({ label: 'kept?' });
    });

    spec.it('concurrent appends with state: the state that stays is the one of the last messages', async () => {
      const store = await spec.open();
      const saved = await started(store);
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.append(saved.id, [Message.user(`turn ${index + 1}`, { id: `c-${index + 1}` })], {
            state: stateOf(index + 1),
          }),
        ),
      );
      const loaded = await store.load(saved.id);
      const last = loaded.messages.at(-1);
      expect(loaded.messages).toHaveLength(22);
      expectState(loaded, stateOf(Number(last?.id.slice(2))));
      expect(loaded.version).toBe(saved.version + 20);
    });

    spec.it('bad state is refused before anything is written', async () => {
      const store = await spec.open();
      const saved = await started(store);
      const bad: unknown[] = [
        null,
        { metadata: [], variables: {} },
        { metadata: {}, variables: JSON.parse('{"__proto__": 1}') as unknown },
        { metadata: {}, variables: { at: Number.NaN } },
        { metadata: {}, variables: {}, lastUsage: { inputTokens: -1, messageCount: 1 } },
        { metadata: {}, variables: {}, lastUsage: { inputTokens: 1 } },
      ];
      for (const state of bad) {
        let failed = false;
        try {
          await store.append(saved.id, [Message.user('never stored', { id: 'never' })], { state: state as State });
        } catch (error) {
          failed = true;
          expect((error as { code?: string }).code).toMatch(/^INVALID_/);
        }
        expect(failed, `state ${JSON.stringify(state)} was accepted`).toBe(true);
      }
      expect((await store.load(saved.id)).version).toBe(saved.version);
    });

    spec.it(
      'the state survives a reopen, encrypted or not',
      async () => {
        for (const encryption of [undefined, SECRET]) {
          const store = await spec.open(encryption === undefined ? {} : { encryption });
          const saved = await started(store);
          await store.append(saved.id, conversation(1, 'one'), { state: stateOf(1) });
          await store.append(saved.id, conversation(1, 'two'), { state: stateOf(2) });
          const reopened = await spec.reopen(store, encryption === undefined ? {} : { encryption });
          const loaded = await reopened.load(saved.id);
          expectState(loaded, stateOf(2));
          expect(loaded.messages.map((message) => message.id)).toEqual(['start-1', 'start-2', 'one-1', 'two-1']);
        }
      },
      { needs: ['reopen'] },
    );
  });
}
