/**
 * The text a shared change feed carries per change (a Postgres notification, a Redis message):
 * small JSON, `{"k":"a"|"r"|"d","i":id,"v":version,"u":owner?}`, the same for every backend so
 * one parser reads them all. A payload this version cannot read (a newer writer's) is skipped.
 * @module
 */
import type { ChangeKind, DriverChange } from '../store/change-types.js';

const KINDS: Readonly<Record<string, ChangeKind>> = { a: 'append', r: 'replace', d: 'delete' };

/** The payload of `change`. */
export function changePayload(change: DriverChange): string {
  return JSON.stringify({
    k: change.kind[0],
    i: change.id,
    v: change.version,
    ...(change.userId === undefined ? {} : { u: change.userId }),
  });
}

/** The change of a payload; `undefined` for one this version does not know. */
export function parseChange(payload: string | Buffer | undefined): DriverChange | undefined {
  try {
    const value = JSON.parse(String(payload ?? '')) as { k?: unknown; i?: unknown; v?: unknown; u?: unknown };
    const kind = typeof value.k === 'string' ? KINDS[value.k] : undefined;
    if (kind === undefined || typeof value.i !== 'string') return undefined;
    const version = Number(value.v ?? 0);
    return {
      kind,
      id: value.i,
      version: Number.isSafeInteger(version) && version >= 0 ? version : 0,
      ...(typeof value.u === 'string' ? { userId: value.u } : {}),
    };
  } catch {
    return undefined;
  }
}
