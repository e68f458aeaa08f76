/**
 * Input checks of `Session`, in one place so that every way into a session (create, fromJSON, the
 * `with…` methods) accepts exactly what `toJSON` can write and `fromJSON` reads back.
 * @module
 */
import { InvalidInputError, type ErrorCode } from '../errors.js';
import { assertOwnerId } from '../ids.js';
import { checkJson, checkJsonRecord as checkRecord } from '../message/json-value.js';
import type { Message } from '../message/message.js';
import type { JsonValue } from '../message/schema.js';
import type { Usage } from '../tokens/usage.js';

/** Variable names that would resolve to Object's members or change a prototype. */
export const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** An `INVALID_SESSION` error. */
export function invalidSession(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_SESSION', `Invalid session: ${message}`);
}

/** An agent or user id (`assertOwnerId`: a non-empty, well-formed string of at most 256 characters), or `INVALID_ID`. */
export function checkOwner(value: string | undefined, what: string): string | undefined {
  return value === undefined ? undefined : assertOwnerId(value, what);
}

/**
 * Rejects reserved variable names: a variable name is an identifier (it names a member of
 * `session.variables`), unlike a key inside a variable's value, which is data and kept. Checked in
 * every way in (create, fromJSON, withVariable), so that whatever a session holds, its JSON reads
 * back. Only own keys are read: a Proxy's or a getter's turn comes with the JSON check.
 */
export function checkVariableNames(variables: unknown): void {
  if (typeof variables !== 'object' || variables === null) return;
  let keys: string[];
  try {
    keys = Object.keys(variables);
  } catch {
    // A Proxy whose traps throw: the JSON check that follows refuses it with its own error.
    return;
  }
  for (const key of keys) {
    if (RESERVED_KEYS.has(key)) throw invalidSession(`variable name ${JSON.stringify(key)} is reserved`);
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The known fields of a provider's usage, validated: extra fields would make `toJSON` unreadable by `fromJSON`. */
export function checkUsage(usage: Usage): Usage {
  const { inputTokens, outputTokens, cachedInputTokens, cacheWriteInputTokens } = (
    typeof usage === 'object' && usage !== null ? usage : {}
  ) as Partial<Usage>;
  const valid =
    isCount(inputTokens) &&
    (outputTokens === undefined || isCount(outputTokens)) &&
    (cachedInputTokens === undefined || isCount(cachedInputTokens)) &&
    (cacheWriteInputTokens === undefined || isCount(cacheWriteInputTokens));
  if (!valid) throw new InvalidInputError('INVALID_ARGUMENT', 'Usage token counts must be non-negative integers');
  return {
    inputTokens,
    ...(outputTokens === undefined ? {} : { outputTokens }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(cacheWriteInputTokens === undefined ? {} : { cacheWriteInputTokens }),
  };
}

/** True when `messages` starts with the `count` messages of `prefix`, as the same values. */
export function keepsPrefix(messages: readonly Message[], prefix: readonly Message[], count: number): boolean {
  if (messages.length < count) return false;
  for (let i = 0; i < count; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}

/**
 * Metadata or variables as a session keeps them: a deep-frozen copy of a JSON object whose values
 * may each nest `MAX_JSON_DEPTH` levels (`readJsonRecord`), "__proto__" keys kept as data; else
 * `code` (`INVALID_ARGUMENT` for a caller's value) naming `what`, or `TOO_LARGE`.
 */
export function checkJsonRecord(
  value: unknown,
  what: string,
  code: ErrorCode = 'INVALID_ARGUMENT',
): Record<string, JsonValue> {
  return checkRecord(value, what, code) as Record<string, JsonValue>;
}

/** A variable's value (`withVariable`): a deep-frozen copy of a JSON value, else `INVALID_ARGUMENT` or `TOO_LARGE`. */
export function checkVariableValue(key: string, value: unknown): JsonValue {
  return checkJson(value, `Variable ${JSON.stringify(key.slice(0, 80))}`);
}
