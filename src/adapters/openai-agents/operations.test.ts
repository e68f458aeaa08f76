/**
 * The transaction hash that tells a retried history transaction from a different one under the
 * same operation id: items that differ only under a `"__proto__"` key (as `JSON.parse` makes it)
 * are different transactions.
 */
import { describe, expect, it } from 'vitest';
import { transactionHash } from './operations.js';
import { snapshotTransaction } from './snapshot.js';

/** A user item whose provider data is `providerData` JSON text. */
function item(providerData: string): unknown {
  return JSON.parse(
    `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}],"providerData":${providerData}}`,
  );
}

function hashOf(items: unknown[]): string {
  return transactionHash(snapshotTransaction({ operationId: 'op-1', transaction: { type: 'append_items', items } }));
}

describe('transactionHash', () => {
  it('tells apart items that differ only under a "__proto__" key', () => {
    const first = hashOf([item('{"__proto__":{"tier":"free"}}')]);
    const second = hashOf([item('{"__proto__":{"tier":"paid"}}')]);
    const none = hashOf([item('{}')]);
    expect(new Set([first, second, none]).size).toBe(3);
  });

  it('keeps the "__proto__" key as data in the snapshot, touching no prototype', () => {
    const { transaction } = snapshotTransaction({
      operationId: 'op-1',
      transaction: { type: 'append_items', items: [item('{"__proto__":{"tier":"free"}}')] },
    });
    const data = (transaction.type === 'append_items' ? transaction.items[0] : undefined) as
      { providerData: Record<string, unknown> } | undefined;
    expect(Object.hasOwn(data?.providerData ?? {}, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(data?.providerData)).toBe(Object.prototype);
    expect(data?.providerData['tier']).toBeUndefined();
  });

  it('is the same for the same transaction whatever its key order (a retry)', () => {
    const reordered = JSON.parse(
      '{"providerData":{"b":1,"a":2},"content":[{"text":"hi","type":"input_text"}],"role":"user","type":"message"}',
    ) as unknown;
    expect(hashOf([item('{"a":2,"b":1}')])).toBe(hashOf([reordered]));
  });
});
