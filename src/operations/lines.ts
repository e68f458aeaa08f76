/**
 * The export line format (`chatstate export`, docs/session-format.md "Export lines"): one JSON
 * object per line, `{"kind":"session","exportFormat":1,"session":{…},"values":{…},"expiresAt":…}`
 * for each session, and `{"kind":"values","exportFormat":1,"scope":"app","values":{…}}` for the
 * app scope. A line holding a plain session JSON is read as a session without values.
 * @module
 */
import { ChatstateError, InvalidInputError, errorMessage } from '../errors.js';
import { readJson } from '../message/json-value.js';
import type { JsonValue } from '../message/schema.js';
import { Session } from '../session/session.js';
import { BUNDLE_SCOPES, type BundleValues, type SessionBundle, type ValueMap } from './bundle.js';

/** Version of the export line format this library writes and reads. */
export const EXPORT_FORMAT = 1;

/** One read line: a session bundle, or the app scope's values. */
export type ExportEntry =
  | { readonly kind: 'session'; readonly bundle: SessionBundle }
  | { readonly kind: 'values'; readonly scope: 'app'; readonly values: ValueMap };

/** The export line of `bundle` (no newline). */
export function bundleLine(bundle: SessionBundle): string {
  return sessionLine(JSON.stringify(bundle.session), bundle.values, bundle.expiresAt);
}

/** What goes before and after a session's JSON text in its export line (no newline). */
function sessionLineEnds(values: BundleValues, expiresAt?: string): [before: string, after: string] {
  const rest = JSON.stringify({
    ...(Object.keys(values).length === 0 ? {} : { values }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
  return [`{"kind":"session","exportFormat":${EXPORT_FORMAT},"session":`, rest === '{}' ? '}' : `,${rest.slice(1)}`];
}

/**
 * The export line of a session given as JSON text (`SessionStore.getJson`, one line), with its
 * values and expiry: the session's text goes in as it is, never parsed and serialized again.
 */
export function sessionLine(sessionText: string, values: BundleValues, expiresAt?: string): string {
  const [before, after] = sessionLineEnds(values, expiresAt);
  return `${before}${sessionText}${after}`;
}

/** `sessionLine` as UTF-8 bytes with its newline, from the session's JSON bytes (`SessionStore.getJsonBytes`). */
export function sessionLineBytes(sessionJson: Uint8Array, values: BundleValues, expiresAt?: string): Buffer {
  const [before, after] = sessionLineEnds(values, expiresAt);
  return Buffer.concat([Buffer.from(before), sessionJson, Buffer.from(`${after}\n`)]);
}

/** The export line of the app scope's values (no newline). */
export function appValuesLine(values: ValueMap): string {
  return JSON.stringify({ kind: 'values', exportFormat: EXPORT_FORMAT, scope: 'app', values });
}

function invalid(line: number, why: string, cause?: unknown): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `line ${line}: ${why}`, {
    details: { line },
    ...(cause === undefined ? {} : { cause }),
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueMap(value: unknown, line: number, what: string): ValueMap {
  if (!isObject(value)) throw invalid(line, `${what} must be an object of key → value`);
  const read = readJson(value);
  if (!read.ok) throw invalid(line, `${what}: ${read.problem.message}`);
  return value as Record<string, JsonValue>;
}

function bundleValues(value: unknown, line: number): BundleValues {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalid(line, '"values" must be an object of scope → values');
  const values: Record<string, ValueMap> = {};
  for (const scope of Object.keys(value)) {
    if (!(BUNDLE_SCOPES as readonly string[]).includes(scope))
      throw invalid(
        line,
        `unknown value scope ${JSON.stringify(scope.slice(0, 40))} (expected ${BUNDLE_SCOPES.join(', ')})`,
      );
    values[scope] = valueMap(value[scope], line, `values.${scope}`);
  }
  return values;
}

function session(json: unknown, line: number): Session {
  try {
    return Session.fromJSON(json);
  } catch (error) {
    if (ChatstateError.isInstance(error)) throw invalid(line, errorMessage(error), error);
    throw error;
  }
}

/** Reads an already-parsed line; `INVALID_ARGUMENT` naming `line` when it is not one. */
export function entryOf(parsed: unknown, line: number): ExportEntry {
  if (!isObject(parsed)) throw invalid(line, 'expected a JSON object');
  if (parsed.kind === undefined && 'messages' in parsed)
    return { kind: 'session', bundle: { session: session(parsed, line), values: {} } };
  if (parsed.exportFormat !== EXPORT_FORMAT) {
    throw invalid(
      line,
      typeof parsed.exportFormat === 'number' && parsed.exportFormat > EXPORT_FORMAT
        ? `exportFormat ${parsed.exportFormat} is newer than this version reads (${EXPORT_FORMAT}): upgrade chatstate`
        : `expected "exportFormat": ${EXPORT_FORMAT}`,
    );
  }
  if (parsed.kind === 'values') {
    if (parsed.scope !== 'app') throw invalid(line, 'a values line must have "scope": "app"');
    return { kind: 'values', scope: 'app', values: valueMap(parsed.values, line, 'values') };
  }
  if (parsed.kind !== 'session')
    throw invalid(line, `unknown kind ${JSON.stringify(String(parsed.kind).slice(0, 40))}`);
  const { expiresAt } = parsed;
  if (expiresAt !== undefined && (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt))))
    throw invalid(line, '"expiresAt" must be an ISO-8601 date');
  return {
    kind: 'session',
    bundle: {
      session: session(parsed.session, line),
      values: bundleValues(parsed.values, line),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    },
  };
}

/** Reads one line of text; `INVALID_ARGUMENT` with the line number and JSON position when it is not one. */
export function parseLine(text: string, line: number): ExportEntry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid(line, `not JSON (${errorMessage(error)})`, error);
  }
  return entryOf(parsed, line);
}
