/**
 * A `SessionKey` (any strings) as chatstate session ids, deterministically, never two keys on one
 * id: `<prefix>.<project>.<session>` for a main transcript, `<main>.<subpath>` for a subagent's
 * and `<main>.s` for the main transcript's sidecar (summary and subpath registry). Each part is
 * `r` + the text when it is short and plain, otherwise `h` + a truncated SHA-256, so ids stay at
 * most 92 characters: room for a tenant's prefix (`tenantStore`) within chatstate's 128.
 * @module
 */
import { createHash } from 'node:crypto';
import { InvalidInputError } from '../../errors.js';
import { isWellFormed } from '../../ids.js';
import type { ClaudeSessionKey } from './types.js';

/** Longest key part accepted (the SDK truncates project paths past 200 characters). */
export const MAX_KEY_PART_CHARS = 1024;

/** Longest part kept readable: a session id fits a UUID, the others stay short. */
const READABLE = { projectKey: 22, sessionId: 36, subpath: 22 } as const;

/** Base64url characters of a hashed part: 132 bits. */
const HASH_CHARS = 22;

/** Suffix of a main transcript's sidecar session; no encoded part is `s` (they start with `r` or `h`). */
export const SIDECAR_SUFFIX = 's';

/** One part of an id: `r<text>` or `h<hash>` (no `.`, so parts joined by `.` never run together). */
export function encodePart(text: string, readable: number): string {
  if (text.length <= readable && /^[A-Za-z0-9_-]+$/.test(text)) return `r${text}`;
  return `h${createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, HASH_CHARS)}`;
}

/** The text of a readable part; `undefined` for a hashed one. */
export function decodePart(part: string): string | undefined {
  return part.startsWith('r') ? part.slice(1) : undefined;
}

/** The session ids of one key. */
export interface KeyIds {
  /** The transcript this key names. */
  readonly transcript: string;
  /** The session's main transcript (the same as `transcript` for a main key). */
  readonly main: string;
  /** The main transcript's sidecar. */
  readonly sidecar: string;
  /** The encoded subpath part, for a subagent's key. */
  readonly subpart?: string;
}

/** `INVALID_ID` unless `value` can be a key part: a non-empty, well-formed string of bounded length. */
function checkPart(value: unknown, what: keyof typeof READABLE): string {
  if (typeof value === 'string' && value.length > 0 && value.length <= MAX_KEY_PART_CHARS && isWellFormed(value))
    return value;
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
  const why =
    typeof value === 'string' && value.length > MAX_KEY_PART_CHARS
      ? `at most ${MAX_KEY_PART_CHARS} characters`
      : 'a non-empty, well-formed string';
  throw new InvalidInputError('INVALID_ID', `claude-agent-sdk: ${what} must be ${why}, got ${shown}`, {
    details: { what },
  });
}

/** A checked copy of `key` (`INVALID_ID` for a malformed one; an empty `subpath` is one). */
export function checkKey(key: unknown): ClaudeSessionKey {
  if (typeof key !== 'object' || key === null || Array.isArray(key))
    throw new InvalidInputError(
      'INVALID_ID',
      'claude-agent-sdk: a session key must be { projectKey, sessionId, subpath? }',
    );
  const { projectKey, sessionId, subpath } = key as Record<string, unknown>;
  const checked = { projectKey: checkPart(projectKey, 'projectKey'), sessionId: checkPart(sessionId, 'sessionId') };
  return subpath === undefined ? checked : { ...checked, subpath: checkPart(subpath, 'subpath') };
}

/** A checked `{ projectKey, sessionId }` (what `listSubkeys` takes). */
export function checkSessionKey(key: unknown): ClaudeSessionKey {
  const { projectKey, sessionId } = checkKey(
    typeof key === 'object' && key !== null ? { ...key, subpath: undefined } : key,
  );
  return { projectKey, sessionId };
}

/** `INVALID_ID` unless `projectKey` can be a key part. */
export function checkProjectKey(projectKey: unknown): string {
  return checkPart(projectKey, 'projectKey');
}

/** The id prefix of every session of `projectKey` under `prefix` (ends with `.`). */
export function projectPrefix(prefix: string, projectKey: string): string {
  return `${prefix}.${encodePart(projectKey, READABLE.projectKey)}.`;
}

/** The session ids of a checked key. */
export function keyIds(prefix: string, key: ClaudeSessionKey): KeyIds {
  const main = `${projectPrefix(prefix, key.projectKey)}${encodePart(key.sessionId, READABLE.sessionId)}`;
  const sidecar = `${main}.${SIDECAR_SUFFIX}`;
  if (key.subpath === undefined) return { transcript: main, main, sidecar };
  const subpart = encodePart(key.subpath, READABLE.subpath);
  return { transcript: `${main}.${subpart}`, main, sidecar, subpart };
}

/** `INVALID_ARGUMENT` unless `prefix` can start session ids (1–6 letters or digits). */
export function checkPrefix(prefix: unknown): string {
  if (typeof prefix === 'string' && /^[A-Za-z0-9]{1,6}$/.test(prefix)) return prefix;
  throw new InvalidInputError(
    'INVALID_ARGUMENT',
    `claude-agent-sdk: sessionPrefix must be 1 to 6 letters or digits, got ${JSON.stringify(String(prefix).slice(0, 20))}`,
  );
}
