/**
 * The opaque cursor of `GET /sessions` pages (the server writes it, the remote store sends it back):
 * the last row's place in list order, base64url JSON.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { ListCursor } from './session-store-types.js';

/** The cursor of the page after `row`. */
export function encodeCursor(row: ListCursor): string {
  return Buffer.from(JSON.stringify([row.updatedAt, row.id]), 'utf8').toString('base64url');
}

/** The place `cursor` stands for; `INVALID_ARGUMENT` when it is not a cursor this server gave. */
export function decodeCursor(cursor: string): ListCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string')
      return { updatedAt: value[0], id: value[1] };
  } catch {
    // Reported below, as any other cursor that is not one.
  }
  throw new InvalidInputError('INVALID_ARGUMENT', 'cursor is not a nextCursor this server gave');
}
