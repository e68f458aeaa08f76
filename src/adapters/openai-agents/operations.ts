/**
 * The history transactions a session has applied, kept in the chatstate session's own metadata
 * (`metadata.openaiAgentsOperations`: the newest `limit` operation ids, each with a SHA-256 of its
 * transaction) so that an operation id is written in the same store commit as its change.
 * @module
 */
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { canonicalJson } from '../../internal/canonical-json.js';
import type { TransactionSnapshot } from './snapshot.js';

/** The metadata key of the operation log. */
export const OPERATIONS_KEY = 'openaiAgentsOperations';

/** One applied operation. */
interface Applied {
  readonly id: string;
  readonly hash: string;
}

/** SHA-256 (hex) of a transaction's canonical JSON. */
export function transactionHash(snapshot: TransactionSnapshot): string {
  return createHash('sha256').update(canonicalJson(snapshot.transaction)).digest('hex');
}

function logOf(metadata: JsonObject): Applied[] {
  const log = metadata[OPERATIONS_KEY];
  if (!Array.isArray(log)) return [];
  return log.flatMap((entry: JsonValue): Applied[] =>
    typeof entry === 'object' &&
    entry !== null &&
    !Array.isArray(entry) &&
    typeof (entry as JsonObject)['id'] === 'string' &&
    typeof (entry as JsonObject)['hash'] === 'string'
      ? [{ id: (entry as JsonObject)['id'] as string, hash: (entry as JsonObject)['hash'] as string }]
      : [],
  );
}

/** The hash recorded for `operationId`, or undefined when it has not been applied (or was forgotten). */
export function appliedHash(metadata: JsonObject, operationId: string): string | undefined {
  return logOf(metadata).find((entry) => entry.id === operationId)?.hash;
}

/** The metadata patch that records `operationId` (the oldest entries beyond `limit` forgotten). */
export function recordApplied(metadata: JsonObject, operationId: string, hash: string, limit: number): JsonObject {
  const log = [...logOf(metadata), { id: operationId, hash }].slice(-limit);
  return { [OPERATIONS_KEY]: log.map((entry) => ({ id: entry.id, hash: entry.hash })) };
}

/** True when `metadata` records no operation. */
export function noneApplied(metadata: JsonObject): boolean {
  return logOf(metadata).length === 0;
}

/** The metadata patch that empties the operation log (a cleared session starts a new one). */
export const CLEARED_LOG: JsonObject = Object.freeze({ [OPERATIONS_KEY]: [] });
