/**
 * LangGraph thread ids and checkpoint namespaces (any strings) as chatstate session ids: one
 * conversation session and one checkpoint-log session per (thread, namespace), never two pairs on
 * one id.
 * @module
 */
import { createHash } from 'node:crypto';
import { InvalidInputError } from '../../errors.js';
import { isWellFormed } from '../../ids.js';

/** Longest thread id or namespace kept readable (or base64url) in a session id; longer ones are hashed. */
const READABLE_CHARS = 58;

/** Suffix of the checkpoint-log session's id. */
export const LOG_SUFFIX = '.cp';

/**
 * One part of a session id: `r` + the text itself when it is letters, digits, `_` and `-`;
 * otherwise `b` + its UTF-8 in base64url when that is short enough; otherwise `h` + its SHA-256 in
 * base64url. The first letter tells the form apart and no form holds a `.`, so parts joined by `.`
 * never collide (the hash only in theory).
 */
export function encodePart(text: string): string {
  if (/^[A-Za-z0-9_-]+$/.test(text) && text.length <= READABLE_CHARS) return `r${text}`;
  const base64 = Buffer.from(text, 'utf8').toString('base64url');
  if (base64.length <= READABLE_CHARS && Buffer.from(base64, 'base64url').toString('utf8') === text)
    return `b${base64}`;
  return `h${createHash('sha256').update(text, 'utf8').digest('base64url')}`;
}

/** The session ids of one (thread, namespace). */
export interface ThreadSessions {
  /** The conversation: the messages channel, readable by `chatstate show`. */
  readonly conversation: string;
  /** The checkpoint log (one entry per checkpoint) and its values (records, blobs, writes). */
  readonly log: string;
}

/** `INVALID_ARGUMENT` unless `value` is a non-empty string (a thread id) or any string (a namespace). */
export function checkKey(value: unknown, what: 'thread_id' | 'checkpoint_ns' | 'checkpoint_id' | 'task_id'): string {
  if (typeof value === 'string' && (value.length > 0 || what === 'checkpoint_ns') && isWellFormed(value)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
  throw new InvalidInputError(
    'INVALID_ARGUMENT',
    `LangGraph saver: configurable.${what} must be a ${what === 'checkpoint_ns' ? '' : 'non-empty '}well-formed string, got ${shown}`,
    { details: { field: what } },
  );
}

/** The sessions of `threadId` in `namespace` under `prefix`. */
export function threadSessions(prefix: string, threadId: string, namespace: string): ThreadSessions {
  const conversation = `${threadPrefix(prefix, threadId)}${namespace === '' ? '' : `.${encodePart(namespace)}`}`;
  return { conversation, log: `${conversation}${LOG_SUFFIX}` };
}

/** Every session of a thread has this id or starts with it and a `.`. */
export function threadPrefix(prefix: string, threadId: string): string {
  return `${prefix}.${encodePart(threadId)}`;
}

/** `INVALID_ARGUMENT` unless `prefix` can start session ids (1–6 letters or digits). */
export function checkPrefix(prefix: string): string {
  if (/^[A-Za-z0-9]{1,6}$/.test(prefix)) return prefix;
  throw new InvalidInputError(
    'INVALID_ARGUMENT',
    `LangGraph saver: sessionPrefix must be 1 to 6 letters or digits, got ${JSON.stringify(String(prefix).slice(0, 20))}`,
  );
}
