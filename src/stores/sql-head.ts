/**
 * The `sessions` head row shared by the SQL drivers (SQLite, Postgres): one column list and one
 * mapping of a `HeadRecord` to bound values, so the two schemas cannot drift apart.
 * @module
 */
import type { RawHeadColumns } from '../store/driver-helpers.js';
import type { HeadRecord } from '../store/driver-types.js';

/** The head columns, in the order of `headValues`. */
export const HEAD_COLUMNS =
  'id, record_schema, version, agent_id, user_id, created_at, updated_at, expires_at, ttl_ms, message_count, token_count, last_seq, title, data, key_check';

/** A head as the 15 bound values of `HEAD_COLUMNS`. */
export function headValues(head: HeadRecord): Array<string | number | null> {
  return [
    head.id,
    head.schema,
    head.version,
    head.agentId ?? null,
    head.userId ?? null,
    head.createdAt,
    head.updatedAt,
    head.expiresAt ?? null,
    head.ttlMs ?? null,
    head.messageCount,
    head.tokenCount,
    head.lastSeq,
    head.title ?? null,
    head.data,
    head.keys ?? null,
  ];
}

/** The columns of a head row a listing can show even when the row is damaged (`listedHead`). */
export function rawColumns(row: unknown): RawHeadColumns {
  const columns = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
  return {
    id: columns.id,
    userId: columns.user_id,
    agentId: columns.agent_id,
    createdAt: columns.created_at,
    updatedAt: columns.updated_at,
  };
}
