/**
 * A goaitools `ConversationState` blob as stored (seed-formats.md §4.1–4.3): raw JSON, base64 (as
 * Go's encoding/json writes a `[]byte`), or a JSON string wrapping either; checked as goaitools
 * checks it, keys matched case-insensitively as Go does (the last duplicate wins).
 * @module
 */
import { isObject, lineOfKey, parseJson, type JsonProblem } from '../json-text.js';

/** How the blob was stored. */
export type BlobEncoding = 'json' | 'base64' | 'base64url' | 'json-string';

/** A checked blob. */
export interface StateBlob {
  readonly version: 1;
  readonly provider: string;
  readonly processedLength: number;
  readonly messages: readonly unknown[];
  /** The keys other than the four, verbatim. */
  readonly extra: Record<string, unknown>;
  readonly encoding: BlobEncoding;
  /** The blob's JSON text (what ids are derived from). */
  readonly text: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** The JSON text inside `stored`, and how it was encoded; undefined when it is none of the accepted forms. */
function unwrap(stored: string, depth = 0): { text: string; encoding: BlobEncoding } | undefined {
  const text = stored.trim();
  if (text.startsWith('{')) return { text, encoding: depth > 0 ? 'json-string' : 'json' };
  if (text.startsWith('"') && depth === 0) {
    const parsed = parseJson(text);
    if (!parsed.ok || typeof parsed.value !== 'string') return undefined;
    const inner = unwrap(parsed.value, 1);
    return inner === undefined
      ? undefined
      : { text: inner.text, encoding: inner.encoding === 'json' ? 'json-string' : inner.encoding };
  }
  for (const [pattern, encoding] of [
    [BASE64, 'base64'],
    [BASE64URL, 'base64url'],
  ] as const) {
    if (!pattern.test(text)) continue;
    const decoded = Buffer.from(text, encoding).toString('utf8').trim();
    if (decoded.startsWith('{')) return { text: decoded, encoding };
  }
  return undefined;
}

/** Go's lookup: the last key equal to `name` ignoring case. */
function field(data: Record<string, unknown>, name: string): { key: string; value: unknown } | undefined {
  let found: { key: string; value: unknown } | undefined;
  for (const [key, value] of Object.entries(data)) if (key.toLowerCase() === name) found = { key, value };
  return found;
}

/** `stored` read as a blob, or the problem goaitools would log (named as in §4.3). */
export function readBlob(stored: string): { ok: true; blob: StateBlob } | { ok: false; problem: JsonProblem } {
  const unwrapped = unwrap(stored);
  if (unwrapped === undefined) {
    const parsed = parseJson(stored);
    return {
      ok: false,
      problem: parsed.ok
        ? {
            code: 'INVALID_ARGUMENT',
            message: 'invalid_conversation_state: not a JSON object, nor base64 of one',
            line: 1,
          }
        : { ...parsed.problem, message: `invalid_conversation_state: ${parsed.problem.message}` },
    };
  }
  const { text, encoding } = unwrapped;
  const parsed = parseJson(text);
  if (!parsed.ok)
    return {
      ok: false,
      problem: { ...parsed.problem, message: `invalid_conversation_state: ${parsed.problem.message}` },
    };
  if (!isObject(parsed.value))
    return {
      ok: false,
      problem: { code: 'INVALID_ARGUMENT', message: 'invalid_conversation_state: not a JSON object', line: 1 },
    };
  const data = parsed.value;
  const wrong = (name: string, expected: string): { ok: false; problem: JsonProblem } => ({
    ok: false,
    problem: {
      code: 'INVALID_ARGUMENT',
      message: `invalid_conversation_state: ${JSON.stringify(name)} must be ${expected}`,
      line: lineOfKey(text, field(data, name)?.key ?? name),
    },
  });
  const version = field(data, 'version')?.value;
  if (version !== undefined && typeof version !== 'number') return wrong('version', 'an integer');
  if (version !== 1) {
    return {
      ok: false,
      problem: {
        code: 'INVALID_ARGUMENT',
        message: `unsupported_state_version: version ${JSON.stringify(version ?? 0)}, expected 1`,
        line: lineOfKey(text, field(data, 'version')?.key ?? 'version'),
      },
    };
  }
  const provider = field(data, 'provider')?.value ?? '';
  if (typeof provider !== 'string') return wrong('provider', 'a string');
  const processed = field(data, 'processed_length')?.value ?? 0;
  if (typeof processed !== 'number' || !Number.isSafeInteger(processed) || processed < 0)
    return wrong('processed_length', 'a non-negative integer');
  const messages = field(data, 'messages')?.value ?? [];
  if (!Array.isArray(messages)) return wrong('messages', 'an array');
  const known = new Set(['version', 'provider', 'processed_length', 'messages']);
  const extra = Object.fromEntries(Object.entries(data).filter(([key]) => !known.has(key.toLowerCase())));
  return { ok: true, blob: { version: 1, provider, processedLength: processed, messages, extra, encoding, text } };
}
