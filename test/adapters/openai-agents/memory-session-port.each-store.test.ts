/**
 * The OpenAI Agents JS SDK's own `MemorySession` test cases, ported to `chatstateSession` and run
 * on every chatstate store.
 *
 * Ported from openai/openai-agents-js, packages/agents-core/test/memorySession.test.ts
 * (MIT License, Copyright (c) OpenAI). The cases are the SDK's; the assertions are adapted to a
 * durable store: errors are chatstate's typed errors (`INVALID_ARGUMENT` for malformed input,
 * `CONFLICT` for a reused operation id or a suffix that no longer matches).
 *
 * Not ported, with the reason:
 * - logger redaction cases: `chatstateSession` logs no item content at all (nothing to redact);
 * - `applyHistoryMutations` cases: that capability (`SessionHistoryRewriteAwareSession`) is not
 *   implemented, and 0.20's mutation shape differs from the repository's newer one;
 * - shared/typed binary data (`Uint8Array`): items are stored as JSON, so binary values are refused
 *   with `INVALID_ARGUMENT` (covered below with the other unsupported values) instead of copied.
 */
import type { AgentInputItem, SessionHistoryTransactionArgs } from '@openai/agents-core';
import { expect, it } from 'vitest';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import type { ChatstateSession } from '../../../src/adapters/openai-agents/session.js';
import type { SessionStore } from '../../../src/store/session-store-types.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';

const createUserMessage = (text: string): AgentInputItem => ({
  role: 'user',
  content: [{ type: 'input_text', text }],
});

/** A session on `store`, seeded with `initialItems` as `MemorySession`'s constructor option does. */
async function seeded(
  store: SessionStore,
  sessionId: string,
  initialItems: AgentInputItem[] = [],
): Promise<ChatstateSession> {
  const session = chatstateSession({ store, sessionId });
  await session.addItems(initialItems);
  return session;
}

/** Rejects with a chatstate error of `code` whose message contains `text`. */
async function rejects(promise: Promise<unknown>, code: string, text: string): Promise<void> {
  await expect(promise).rejects.toThrow(expect.objectContaining({ code, message: expect.stringContaining(text) }));
}

await describeEveryStore(
  'openai-agents MemorySession cases',
  (subject) => {
    const stores = storesOf(subject);

    it('stores and retrieves items', async () => {
      const initialItems = [createUserMessage('hello')];
      const session = await seeded(await stores.open(), 'session-1', initialItems);
      expect(await session.getSessionId()).toBe('session-1');
      expect(await session.getItems()).toEqual(initialItems);
      const newItems = [createUserMessage('one'), createUserMessage('two')];
      await session.addItems(newItems);
      expect(await session.getItems()).toEqual([...initialItems, ...newItems]);
      expect(await session.getItems(2)).toEqual(newItems);
      expect(await session.popItem()).toEqual(newItems[1]);
      expect(await session.getItems()).toEqual([...initialItems, newItems[0]]);
      await session.clearSession();
      expect(await session.getItems()).toEqual([]);
      expect(await session.getItems(3)).toEqual([]);
      expect(await session.popItem()).toBeUndefined();
    });

    it('returns clones so external mutations do not persist', async () => {
      const initial = createUserMessage('start');
      const session = await seeded(await stores.open(), 'session-2', [initial]);
      const items = await session.getItems();
      expect(items[0]).not.toBe(initial);
      (items[0] as { content: unknown }).content = 'mutated';
      expect(await session.getItems()).toEqual([createUserMessage('start')]);
      const next = createUserMessage('next');
      await session.addItems([next]);
      (next as { content: unknown }).content = 'mutated';
      expect(await session.getItems()).toEqual([createUserMessage('start'), createUserMessage('next')]);
      const popped = await session.popItem();
      expect(popped).toEqual(createUserMessage('next'));
      if (popped !== undefined) (popped as { content: unknown }).content = 'mutated';
      expect(await session.getItems()).toEqual([createUserMessage('start')]);
    });

    it('applies append transactions idempotently', async () => {
      const session = await seeded(await stores.open(), 'transaction-append', [createUserMessage('start')]);
      const appended = createUserMessage('committed');
      const args = {
        operationId: 'operation-append-1',
        transaction: { type: 'append_items' as const, items: [appended] },
      };
      await session.applyHistoryTransaction(args);
      (appended as { content: unknown }).content = 'mutated';
      await session.addItems([createUserMessage('later')]);
      await session.applyHistoryTransaction({
        operationId: args.operationId,
        transaction: { type: 'append_items', items: [createUserMessage('committed')] },
      });
      expect(await session.getItems()).toEqual([
        createUserMessage('start'),
        createUserMessage('committed'),
        createUserMessage('later'),
      ]);
    });

    it('replaces an exact history suffix idempotently', async () => {
      const prefix = createUserMessage('start');
      const expected = createUserMessage('blocked');
      const replacement = createUserMessage('accepted');
      const session = await seeded(await stores.open(), 'transaction-replace', [prefix, expected]);
      const transaction = {
        operationId: 'operation-replace-1',
        transaction: { type: 'replace_suffix' as const, expectedSuffix: [expected], replacement: [replacement] },
      };
      await session.applyHistoryTransaction(transaction);
      await session.addItems([createUserMessage('later')]);
      await session.applyHistoryTransaction(transaction);
      expect(await session.getItems()).toEqual([prefix, replacement, createUserMessage('later')]);
    });

    it('rejects a suffix mismatch without recording the operation', async () => {
      const start = createUserMessage('start');
      const session = await seeded(await stores.open(), 'transaction-precondition', [start]);
      await rejects(
        session.applyHistoryTransaction({
          operationId: 'operation-replace-after-conflict',
          transaction: {
            type: 'replace_suffix',
            expectedSuffix: [createUserMessage('different')],
            replacement: [createUserMessage('accepted')],
          },
        }),
        'CONFLICT',
        'suffix no longer matches',
      );
      expect(await session.getItems()).toEqual([start]);
      await session.applyHistoryTransaction({
        operationId: 'operation-replace-after-conflict',
        transaction: { type: 'replace_suffix', expectedSuffix: [start], replacement: [createUserMessage('accepted')] },
      });
      expect(await session.getItems()).toEqual([createUserMessage('accepted')]);
    });

    it('rejects operation id reuse with different content', async () => {
      const session = await seeded(await stores.open(), 'transaction-operation-conflict');
      await session.applyHistoryTransaction({
        operationId: 'operation-conflict',
        transaction: { type: 'append_items', items: [createUserMessage('first')] },
      });
      await rejects(
        session.applyHistoryTransaction({
          operationId: 'operation-conflict',
          transaction: { type: 'append_items', items: [createUserMessage('second')] },
        }),
        'CONFLICT',
        'already applied with a different transaction',
      );
      expect(await session.getItems()).toEqual([createUserMessage('first')]);
    });

    it('records an empty append transaction', async () => {
      const session = await seeded(await stores.open(), 'transaction-empty-append');
      await session.applyHistoryTransaction({
        operationId: 'operation-empty',
        transaction: { type: 'append_items', items: [] },
      });
      await rejects(
        session.applyHistoryTransaction({
          operationId: 'operation-empty',
          transaction: { type: 'append_items', items: [createUserMessage('unexpected')] },
        }),
        'CONFLICT',
        'already applied with a different transaction',
      );
      expect(await session.getItems()).toEqual([]);
    });

    it('resets transaction identities when the session is cleared', async () => {
      const session = await seeded(await stores.open(), 'transaction-reset');
      const transaction = {
        operationId: 'operation-after-reset',
        transaction: { type: 'append_items' as const, items: [createUserMessage('committed')] },
      };
      await session.applyHistoryTransaction(transaction);
      await session.clearSession();
      await session.applyHistoryTransaction(transaction);
      expect(await session.getItems()).toEqual([createUserMessage('committed')]);
    });

    it('rejects invalid transaction input before mutation', async () => {
      const start = createUserMessage('start');
      const session = await seeded(await stores.open(), 'transaction-invalid', [start]);
      const invalid = (args: unknown): Promise<void> =>
        session.applyHistoryTransaction(args as SessionHistoryTransactionArgs);
      await rejects(
        invalid({ operationId: '   ', transaction: { type: 'append_items', items: [] } }),
        'INVALID_ARGUMENT',
        'operationId must be a non-empty string',
      );
      await rejects(
        invalid({ operationId: 'operation-unknown', transaction: { type: 'unknown' } }),
        'INVALID_ARGUMENT',
        'unsupported session history transaction type',
      );
      await rejects(
        invalid({ operationId: 'operation-missing-transaction', transaction: null }),
        'INVALID_ARGUMENT',
        'transaction must be an object',
      );
      await rejects(
        invalid({ operationId: 'operation-invalid-item', transaction: { type: 'append_items', items: [42] } }),
        'INVALID_ARGUMENT',
        'items contain invalid or unsupported data',
      );
      expect(await session.getItems()).toEqual([start]);
    });

    it('rejects unsupported transaction metadata before mutation', async () => {
      const start = createUserMessage('start');
      const session = await seeded(await stores.open(), 'transaction-unsupported', [start]);
      const withDate = { ...createUserMessage('unsupported'), providerData: { timestamp: new Date(0) } };
      const cycle: Record<string, unknown> = {};
      cycle['self'] = cycle;
      const withCycle = { ...createUserMessage('cyclic'), providerData: cycle };
      const withBigInt = { ...createUserMessage('bigint'), providerData: { value: 42n } };
      const withBytes = { ...createUserMessage('bytes'), providerData: { bytes: new Uint8Array([3, 7]) } };
      const sparseItems = new Array<AgentInputItem>(1);
      const cases: Array<[string, unknown[]]> = [
        ['operation-date', [withDate]],
        ['operation-cycle', [withCycle]],
        ['operation-bigint', [withBigInt]],
        ['operation-bytes', [withBytes]],
        ['operation-sparse', sparseItems],
      ];
      for (const [operationId, items] of cases)
        await rejects(
          session.applyHistoryTransaction({
            operationId,
            transaction: { type: 'append_items', items: items as AgentInputItem[] },
          }),
          'INVALID_ARGUMENT',
          'items contain invalid or unsupported data',
        );
      expect(await session.getItems()).toEqual([start]);
    });

    it('rejects non-enumerable metadata before mutation, and the operation id stays free', async () => {
      const start = createUserMessage('start');
      const session = await seeded(await stores.open(), 'transaction-non-enumerable', [start]);
      const item = createUserMessage('unsupported');
      Object.defineProperty(item, 'providerData', { enumerable: false, value: { hidden: true } });
      await rejects(
        session.applyHistoryTransaction({
          operationId: 'operation-non-enumerable',
          transaction: { type: 'append_items', items: [item] },
        }),
        'INVALID_ARGUMENT',
        'items contain invalid or unsupported data',
      );
      expect(await session.getItems()).toEqual([start]);
      const retryItem = createUserMessage('retry');
      await session.applyHistoryTransaction({
        operationId: 'operation-non-enumerable',
        transaction: { type: 'append_items', items: [retryItem] },
      });
      expect(await session.getItems()).toEqual([start, retryItem]);
    });

    it('rejects unexpected transaction fields before mutation', async () => {
      const start = createUserMessage('start');
      const session = await seeded(await stores.open(), 'transaction-unexpected-fields', [start]);
      await rejects(
        session.applyHistoryTransaction({
          operationId: 'operation-unexpected-append-field',
          transaction: { type: 'append_items', items: [createUserMessage('unsupported')], metadata: { attempt: 1 } },
        } as unknown as SessionHistoryTransactionArgs),
        'INVALID_ARGUMENT',
        'append transaction fields are invalid',
      );
      await rejects(
        session.applyHistoryTransaction({
          operationId: 'operation-unexpected-suffix-field',
          transaction: {
            type: 'replace_suffix',
            expectedSuffix: [start],
            replacement: [createUserMessage('unsupported')],
            metadata: { attempt: 1 },
          },
        } as unknown as SessionHistoryTransactionArgs),
        'INVALID_ARGUMENT',
        'suffix transaction fields are invalid',
      );
      expect(await session.getItems()).toEqual([start]);
      const retryItem = createUserMessage('retry');
      await session.applyHistoryTransaction({
        operationId: 'operation-unexpected-append-field',
        transaction: { type: 'append_items', items: [retryItem] },
      });
      expect(await session.getItems()).toEqual([start, retryItem]);
    });

    it('does not expose transaction content in snapshot errors', async () => {
      const session = await seeded(await stores.open(), 'transaction-error-redaction');
      const item = { ...createUserMessage('unsupported'), providerData: { secret: Symbol('api-key-secret') } };
      const error = await session
        .applyHistoryTransaction({
          operationId: 'operation-sensitive-invalid',
          transaction: { type: 'append_items', items: [item] },
        })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('items contain invalid or unsupported data');
      expect((error as Error).message).not.toContain('api-key-secret');
      expect(await session.getItems()).toEqual([]);
    });

    it('canonicalizes ordinary object prototypes for retries and suffixes', async () => {
      const session = await seeded(await stores.open(), 'transaction-canonical-object');
      const appended = {
        ...createUserMessage('canonical'),
        providerData: Object.assign(Object.create(null) as Record<string, unknown>, { source: 'provider' }),
      };
      await session.applyHistoryTransaction({
        operationId: 'operation-canonical-append',
        transaction: { type: 'append_items', items: [appended] },
      });
      const [roundTripped] = await session.getItems();
      await session.applyHistoryTransaction({
        operationId: 'operation-canonical-append',
        transaction: { type: 'append_items', items: [roundTripped as AgentInputItem] },
      });
      await session.applyHistoryTransaction({
        operationId: 'operation-canonical-replace',
        transaction: {
          type: 'replace_suffix',
          expectedSuffix: [appended],
          replacement: [createUserMessage('replaced')],
        },
      });
      expect(await session.getItems()).toEqual([createUserMessage('replaced')]);
    });

    it('rejects unsupported cloned values without recording the operation', async () => {
      const typedArrayItem = {
        ...createUserMessage('unsupported-typed-array'),
        providerData: { values: new Uint16Array([300]) },
      };
      const proxiedItems = new Proxy([createUserMessage('proxied')], {});
      const session = await seeded(await stores.open(), 'transaction-unsupported-clones');
      await rejects(
        session.applyHistoryTransaction({
          operationId: 'operation-rejected-clone',
          transaction: { type: 'append_items', items: [typedArrayItem] },
        }),
        'INVALID_ARGUMENT',
        'items contain invalid or unsupported data',
      );
      // A Proxy over a plain array reads as that array: JSON can hold it, so it is accepted as the
      // items it shows (the SDK refuses it because structuredClone cannot copy a Proxy).
      await session.applyHistoryTransaction({
        operationId: 'operation-rejected-clone',
        transaction: { type: 'append_items', items: [createUserMessage('accepted-after-rejections')] },
      });
      await session.applyHistoryTransaction({
        operationId: 'operation-proxied',
        transaction: { type: 'append_items', items: proxiedItems },
      });
      expect(await session.getItems()).toEqual([
        createUserMessage('accepted-after-rejections'),
        createUserMessage('proxied'),
      ]);
    });

    it('reads the transaction envelope once and hides accessor errors', async () => {
      const session = await seeded(await stores.open(), 'transaction-envelope');
      let operationIdReads = 0;
      const args = {
        transaction: { type: 'append_items' as const, items: [createUserMessage('once')] },
      } as SessionHistoryTransactionArgs;
      Object.defineProperty(args, 'operationId', {
        enumerable: true,
        get: () => {
          operationIdReads++;
          return operationIdReads === 1 ? 'operation-read-once' : 'changed';
        },
      });
      await session.applyHistoryTransaction(args);
      expect(operationIdReads).toBe(1);
      operationIdReads = 0;
      await session.applyHistoryTransaction(args);
      expect(operationIdReads).toBe(1);
      expect(await session.getItems()).toEqual([createUserMessage('once')]);
      const throwingArgs = {} as SessionHistoryTransactionArgs;
      Object.defineProperty(throwingArgs, 'operationId', {
        get: () => {
          throw new Error('api-key-secret');
        },
      });
      const error = await session.applyHistoryTransaction(throwingArgs).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toEqual(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
      expect((error as Error).message).toContain('session history transaction arguments are invalid');
      expect((error as Error).message).not.toContain('api-key-secret');
    });
  },
  'oaport',
);
