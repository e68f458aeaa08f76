/**
 * Items and history transactions read once into plain JSON before anything is written: what the
 * session stores is JSON, so a value JSON cannot hold exactly (a `Date`, a `bigint`, a typed array,
 * a cycle, a getter, a hole, a symbol or non-enumerable key) is refused with `INVALID_ARGUMENT`
 * instead of being stored as something else. Messages never include the refused value (it may be
 * a secret).
 * @module
 */
import { protocol, type AgentInputItem, type SessionHistoryTransaction } from '@openai/agents-core';
import { InvalidInputError } from '../../errors.js';
import { defineField } from '../../internal/define-field.js';
import type { JsonValue } from '../../message/schema.js';

/** The refusal every unsupported value gets (its content is never echoed). */
function unsupported(what: string): InvalidInputError {
  return new InvalidInputError(
    'INVALID_ARGUMENT',
    `openai-agents: session history ${what} contain invalid or unsupported data (only JSON is stored)`,
  );
}

/** `value` as a fresh JSON value; throws a plain `Error` for anything JSON cannot hold exactly. */
function snapshotValue(value: unknown, ancestors: Set<object>): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (value === undefined) return undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('not a finite number');
    return value;
  }
  if (typeof value !== 'object') throw new Error('not JSON');
  if (ancestors.has(value)) throw new Error('cyclic');
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const keys = Reflect.ownKeys(value);
      if (keys.length !== value.length + 1) throw new Error('sparse or extended array');
      const out: JsonValue[] = [];
      for (let index = 0; index < value.length; index++) {
        const descriptor = Object.getOwnPropertyDescriptor(value, String(index));
        if (descriptor === undefined || !('value' in descriptor) || descriptor.enumerable !== true)
          throw new Error('unsupported array element');
        const inner = snapshotValue(descriptor.value, ancestors);
        out.push(inner === undefined ? null : inner);
      }
      return out;
    }
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw new Error('not a plain object');
    const out: Record<string, JsonValue> = {};
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key !== 'string') throw new Error('symbol key');
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined || !('value' in descriptor) || descriptor.enumerable !== true)
        throw new Error('unsupported property');
      const inner = snapshotValue(descriptor.value, ancestors);
      if (inner !== undefined) defineField(out, key, inner);
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/**
 * `items` copied into plain JSON and checked against the SDK's own item schema; `INVALID_ARGUMENT`
 * (naming `what`) when one is not an array of items JSON can hold.
 */
export function snapshotItems(items: unknown, what = 'items'): AgentInputItem[] {
  let copy: JsonValue | undefined;
  try {
    copy = snapshotValue(items, new Set());
  } catch {
    throw unsupported(what);
  }
  if (!Array.isArray(copy)) throw unsupported(what);
  for (const item of copy) if (!protocol.ModelItem.safeParse(item).success) throw unsupported(what);
  return copy as AgentInputItem[];
}

/** A history transaction read once: its operation id and a JSON copy of its change. */
export interface TransactionSnapshot {
  readonly operationId: string;
  readonly transaction: SessionHistoryTransaction;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `openai-agents: ${message}`);
}

/**
 * `args` of `applyHistoryTransaction` read once (each field one time, accessor errors hidden) and
 * checked: a non-empty `operationId`, and exactly `{ type: 'append_items', items }` or
 * `{ type: 'replace_suffix', expectedSuffix, replacement }` over JSON items.
 */
export function snapshotTransaction(args: unknown): TransactionSnapshot {
  let operationId: unknown;
  let transaction: unknown;
  try {
    if (typeof args !== 'object' || args === null) throw new Error('missing');
    operationId = Reflect.get(args, 'operationId');
    transaction = Reflect.get(args, 'transaction');
  } catch {
    throw invalid('session history transaction arguments are invalid');
  }
  if (typeof operationId !== 'string' || operationId.trim().length === 0)
    throw invalid('session history transaction operationId must be a non-empty string');
  if (typeof transaction !== 'object' || transaction === null)
    throw invalid('session history transaction must be an object');
  let copy: JsonValue | undefined;
  try {
    copy = snapshotValue(transaction, new Set());
  } catch {
    throw unsupported('transaction items');
  }
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy))
    throw invalid('session history transaction must be an object');
  const record = copy as Readonly<Record<string, JsonValue>>;
  const keys = Object.keys(record).sort().join(',');
  if (record['type'] === 'append_items') {
    if (keys !== 'items,type' || !Array.isArray(record['items']))
      throw invalid('session history append transaction fields are invalid');
    return {
      operationId,
      transaction: { type: 'append_items', items: snapshotItems(record['items'], 'transaction items') },
    };
  }
  if (record['type'] === 'replace_suffix') {
    if (
      keys !== 'expectedSuffix,replacement,type' ||
      !Array.isArray(record['expectedSuffix']) ||
      !Array.isArray(record['replacement'])
    )
      throw invalid('session history suffix transaction fields are invalid');
    return {
      operationId,
      transaction: {
        type: 'replace_suffix',
        expectedSuffix: snapshotItems(record['expectedSuffix'], 'transaction items'),
        replacement: snapshotItems(record['replacement'], 'transaction items'),
      },
    };
  }
  throw invalid('unsupported session history transaction type');
}
