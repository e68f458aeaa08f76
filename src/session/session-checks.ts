/**
 * Input checks of `Session`, in one place so that every way into a session (create, fromJSON, the
 * `with…` methods) accepts exactly what `toJSON` can write and `fromJSON` reads back.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { Message } from '../message/message.js';
import { jsonValueSchema, type JsonValue } from '../message/schema.js';
import type { Usage } from '../tokens/usage.js';

/** Variable names that would resolve to Object's members or change a prototype. */
export const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** An `INVALID_SESSION` error. */
export function invalidSession(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_SESSION', `Invalid session: ${message}`);
}

/** An agent or user id: a non-empty string of at most 256 characters, or `INVALID_ID`. */
export function checkOwner(value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
    throw new InvalidInputError('INVALID_ID', `Invalid ${what}: expected a non-empty string of at most 256 characters`);
  }
  return value;
}

/**
 * Rejects reserved variable names in raw input. Checked before parsing, which would silently drop a
 * "__proto__" key; and in every way in (create, fromJSON, withVariable), so that whatever a session
 * holds, its JSON reads back.
 */
export function checkVariableNames(variables: unknown): void {
  if (typeof variables !== 'object' || variables === null) return;
  for (const key of Object.keys(variables)) {
    if (RESERVED_KEYS.has(key)) throw invalidSession(`variable name ${JSON.stringify(key)} is reserved`);
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The known fields of a provider's usage, validated: extra fields would make `toJSON` unreadable by `fromJSON`. */
export function checkUsage(usage: Usage): Usage {
  const { inputTokens, outputTokens, cachedInputTokens } = (typeof usage === 'object' && usage !== null ? usage : {}) as Partial<Usage>;
  const valid =
    isCount(inputTokens) &&
    (outputTokens === undefined || isCount(outputTokens)) &&
    (cachedInputTokens === undefined || isCount(cachedInputTokens));
  if (!valid) throw new InvalidInputError('INVALID_ARGUMENT', 'Usage token counts must be non-negative integers');
  return {
    inputTokens,
    ...(outputTokens === undefined ? {} : { outputTokens }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
  };
}

/** True when `messages` starts with the `count` messages of `prefix`, as the same values. */
export function keepsPrefix(messages: readonly Message[], prefix: readonly Message[], count: number): boolean {
  if (messages.length < count) return false;
  for (let i = 0; i < count; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}

/** A JSON object (parsed, so a copy), or `INVALID_SESSION` naming `what`. */
export function checkJsonRecord(value: unknown, what: string): Record<string, JsonValue> {
  const parsed = jsonValueSchema.safeParse(value);
  if (!parsed.success || typeof parsed.data !== 'object' || parsed.data === null || Array.isArray(parsed.data)) {
    throw invalidSession(`${what} must be a JSON object`);
  }
  return parsed.data as Record<string, JsonValue>;
}
