/**
 * Versions over HTTP: a session's `ETag` is its version (`"7"`), and `If-Match` carries the
 * version a write expects (`expectedVersion`).
 * @module
 */
import { InvalidInputError } from '../errors.js';

/** The `ETag` of version `version`. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * The version an `If-Match` header expects: `undefined` without one (or `*`, any version);
 * `INVALID_ARGUMENT` for anything but one strong ETag of a version.
 */
export function expectedVersionOf(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*"(\d{1,15})"\s*$/.exec(header);
  if (match === null) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `If-Match must be one ETag of a session version, such as "3" (got ${JSON.stringify(header.slice(0, 40))})`,
    );
  }
  return Number(match[1]);
}
