/**
 * Active memory in the Postgres store: values by namespace, and the `tsvector` index of message
 * text (its upkeep on append and replace, and the search). Functions take a connection the driver
 * checked out; those that write run inside its transaction.
 * @module
 */
import { DataError } from '../../errors.js';
import type { DriverForgetResult, ForgetTarget, MessageRecord, ValueRecord } from '../../store/driver-types.js';
import { VECTOR_KEY_PREFIX } from '../../store/values.js';
import type { TextSearchHit, TextSearchQuery } from '../../store/session-store-types.js';
import { MAX_QUERY_TERMS, foldText, relativeScores, sessionNamespaces } from '../sql-search.js';
import type { PgClientLike } from './driver.js';
import { assertStorable, isStorable, type Tables } from './sql.js';

/**
 * The text search configuration. 'english' rather than 'simple': `ts_rank_cd` has no inverse
 * document frequency, so with 'simple' the stop words of a question ("what did we say about the
 * trip") would weigh as much as its real words in the ranking, and match nearly every message;
 * 'english' drops them and stems ("running" finds "run"), as the SQLite store's porter tokenizer
 * does. Text in other languages is still matched word for word (only English stop words and
 * suffixes are touched).
 */
export const SEARCH_CONFIG = 'english';

// Rows per INSERT into the index, and characters of text per INSERT (a message may carry up to
// MAX_INDEXED_CHARS): bounds the size of one statement's parameters.
const INDEX_BATCH_ROWS = 1000;
const INDEX_BATCH_CHARS = 4_000_000;

/** The statements of active memory, for one store's tables. */
export function activeMemoryStatements(tables: Tables) {
  const { values, search } = tables;
  return {
    /** Name of the store in error messages. */
    store: tables.store,
    readValues: `SELECT key, data FROM ${values} WHERE ns = $1 ORDER BY key`,
    readSomeValues: `SELECT key, data FROM ${values} WHERE ns = $1 AND key = ANY($2::text[]) ORDER BY key`,
    deleteValues: `DELETE FROM ${values} WHERE ns = $1 AND key = ANY($2::text[])`,
    putValues: `INSERT INTO ${values} (ns, key, data, updated_at) SELECT $1, key, data, $4 FROM unnest($2::text[], $3::text[]) AS batch(key, data)
      ON CONFLICT (ns, key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
    // One range scan of the (ns, key) primary key per session; see sessionNamespaces.
    deleteSessionValues: `DELETE FROM ${values} WHERE ns >= $1 AND ns < $2 AND (ns = $1 OR ns >= $3)`,
    deleteManySessionValues: `DELETE FROM ${values} v USING unnest($1::text[], $2::text[], $3::text[]) AS gone(exact, children, ends)
      WHERE v.ns >= gone.exact AND v.ns < gone.ends AND (v.ns = gone.exact OR v.ns >= gone.children)`,
    insertIndex: `INSERT INTO ${search} (session_id, seq, message_id, user_id, body)
      SELECT $1, seq, id, $2, to_tsvector('${SEARCH_CONFIG}', text) FROM unnest($3::bigint[], $4::text[], $5::text[]) AS batch(seq, id, text)`,
    deleteIndex: `DELETE FROM ${search} WHERE session_id = $1`,
    deleteIndexAfter: `DELETE FROM ${search} WHERE session_id = $1 AND seq > $2`,
    /**
     * The lexemes of a query (parsed, stemmed, stop words removed, as messages are indexed), each
     * quoted as a tsquery literal (quote and backslash escaped) and joined by `|`: the user's text
     * is never read as tsquery syntax. NULL when nothing is left.
     */
    queryOf: `SELECT string_agg(chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39), ' | ') AS query
      FROM (SELECT lexeme FROM unnest(tsvector_to_array(to_tsvector('${SEARCH_CONFIG}', $1))) AS lexeme LIMIT ${MAX_QUERY_TERMS}) AS lexemes`,
    /** The search, with its filters written so the planner can use the text index, the user index, or both. */
    search(filter: { user: boolean; sessions: boolean }): string {
      const where = ['body @@ $1::tsquery', filter.user ? 'user_id = $3' : 'user_id IS NULL'];
      if (filter.sessions) where.push(`session_id = ANY($${filter.user ? 4 : 3}::text[])`);
      return `SELECT session_id, seq, message_id, ts_rank_cd(body, $1::tsquery) AS rank FROM ${search}
        WHERE ${where.join(' AND ')} ORDER BY rank DESC, session_id, seq DESC LIMIT $2`;
    },
  };
}

/** The statements of active memory. */
export type ActiveMemoryStatements = ReturnType<typeof activeMemoryStatements>;

/** Indexes the messages that carry text, in bounded batches. */
export async function indexMessages(
  client: PgClientLike,
  sql: ActiveMemoryStatements,
  sessionId: string,
  userId: string | undefined,
  messages: ReadonlyArray<Pick<MessageRecord, 'seq' | 'id'> & { readonly text?: string }>,
): Promise<void> {
  let batch: Array<{ seq: number; id: string; text: string }> = [];
  let chars = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    await client.query(sql.insertIndex, [
      sessionId,
      userId ?? null,
      batch.map((row) => row.seq),
      batch.map((row) => row.id),
      batch.map((row) => row.text),
    ]);
    batch = [];
    chars = 0;
  };
  for (const message of messages) {
    if (message.text === undefined) continue;
    const text = foldText(message.text);
    if (batch.length === INDEX_BATCH_ROWS || chars + text.length > INDEX_BATCH_CHARS) await flush();
    batch.push({ seq: message.seq, id: message.id, text });
    chars += text.length;
  }
  await flush();
}

/** Deletes the values of session `id` (its index rows go with its head, by the foreign key). */
export async function forgetSessionValues(
  client: PgClientLike,
  sql: ActiveMemoryStatements,
  id: string,
): Promise<void> {
  const { exact, children, end } = sessionNamespaces(id);
  await client.query(sql.deleteSessionValues, [exact, end, children]);
}

/** Deletes the values of the sessions `ids`. */
export async function forgetManySessionValues(
  client: PgClientLike,
  sql: ActiveMemoryStatements,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  const ranges = ids.map(sessionNamespaces);
  await client.query(sql.deleteManySessionValues, [
    ranges.map((range) => range.exact),
    ranges.map((range) => range.children),
    ranges.map((range) => range.end),
  ]);
}

/** The statements of `forgetUserRows`, for one store's tables. */
export function forgetStatements(tables: {
  readonly sessions: string;
  readonly messages: string;
  readonly values: string;
  readonly search: string;
}) {
  const { sessions, messages, values, search } = tables;
  return {
    // Locked, so a concurrent append to one of them waits and then finds it gone.
    userSessions: `SELECT id FROM ${sessions} WHERE user_id = $1 ORDER BY id FOR UPDATE`,
    sessionValues: `WITH gone AS (DELETE FROM ${values} v USING unnest($1::text[], $2::text[], $3::text[]) AS s(exact, children, ends)
      WHERE v.ns >= s.exact AND v.ns < s.ends AND (v.ns = s.exact OR v.ns >= s.children) RETURNING v.key)
      SELECT count(*)::int AS n, (count(*) FILTER (WHERE left(key, ${VECTOR_KEY_PREFIX.length}) = '${VECTOR_KEY_PREFIX}'))::int AS vectors FROM gone`,
    textRows: `DELETE FROM ${search} WHERE user_id = $1 OR session_id = ANY($2::text[])`,
    messages: `DELETE FROM ${messages} WHERE session_id = ANY($1::text[])`,
    sessions: `DELETE FROM ${sessions} WHERE id = ANY($1::text[]) RETURNING id`,
    userValues: `DELETE FROM ${values} WHERE ns = $1 OR (ns >= 'agent:' AND ns < 'agent;' AND right(ns, length($2)) = $2)`,
  };
}

/** Removes every row of one user, inside the driver's transaction (see `ForgetDriver`). */
export async function forgetUserRows(
  client: PgClientLike,
  sql: ReturnType<typeof forgetStatements>,
  target: ForgetTarget,
): Promise<DriverForgetResult> {
  const ids = (await client.query(sql.userSessions, [target.userId])).rows.map((row) =>
    String((row as { id: unknown }).id),
  );
  const ranges = ids.map(sessionNamespaces);
  const side = (
    await client.query(sql.sessionValues, [
      ranges.map((range) => range.exact),
      ranges.map((range) => range.children),
      ranges.map((range) => range.end),
    ])
  ).rows[0] as { n: number; vectors: number };
  const textRows = (await client.query(sql.textRows, [target.userId, ids])).rowCount ?? 0;
  const messages = (await client.query(sql.messages, [ids])).rowCount ?? 0;
  const gone = (await client.query(sql.sessions, [ids])).rows.map((row) => String((row as { id: unknown }).id));
  const values = (await client.query(sql.userValues, [target.userNamespace, target.agentSuffix])).rowCount ?? 0;
  return {
    sessionIds: gone,
    sessions: gone.length,
    messages,
    values,
    sessionValues: side.n,
    vectors: side.vectors,
    textRows,
    files: 0,
  };
}

/** The values of `ns` (only `keys`, when given), keys ascending. */
export async function readValues(
  client: PgClientLike,
  sql: ActiveMemoryStatements,
  ns: string,
  keys: readonly string[] | undefined,
): Promise<ValueRecord[]> {
  // Postgres text cannot hold such a string, so it was never stored: it matches nothing.
  if (!isStorable(ns)) return [];
  const wanted = keys?.filter((key) => isStorable(key));
  if (wanted !== undefined && wanted.length === 0) return [];
  const result =
    wanted === undefined
      ? await client.query(sql.readValues, [ns])
      : await client.query(sql.readSomeValues, [ns, wanted]);
  return result.rows.map((row) => {
    const { key, data } = row as { key?: unknown; data?: unknown };
    if (typeof key !== 'string' || typeof data !== 'string')
      throw new DataError(
        'CORRUPT',
        `${sql.store}: a value row of namespace ${JSON.stringify(ns)} is not (text, text)`,
      );
    return Object.freeze({ key, data });
  });
}

/**
 * The entries of a write, checked (every string storable as given), one per key (the last one
 * wins) and sorted by key, so that concurrent writers lock rows in the same order.
 */
export function plannedWrites(
  store: string,
  ns: string,
  entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
): { puts: Array<[string, string]>; deletes: string[] } {
  assertStorable(ns, 'a value namespace', store);
  const last = new Map<string, string | null>();
  for (const entry of entries) {
    assertStorable(entry.key, 'a value key', store);
    assertStorable(entry.data ?? undefined, 'a value', store);
    last.set(entry.key, entry.data);
  }
  const puts: Array<[string, string]> = [];
  const deletes: string[] = [];
  for (const key of [...last.keys()].sort()) {
    const data = last.get(key) ?? null;
    if (data === null) deletes.push(key);
    else puts.push([key, data]);
  }
  return { puts, deletes };
}

/** Applies planned writes inside the caller's transaction. */
export async function writeValues(
  client: PgClientLike,
  sql: ActiveMemoryStatements,
  ns: string,
  planned: ReturnType<typeof plannedWrites>,
  now: number,
): Promise<void> {
  if (planned.deletes.length > 0) await client.query(sql.deleteValues, [ns, planned.deletes]);
  if (planned.puts.length > 0) {
    await client.query(sql.putValues, [
      ns,
      planned.puts.map(([key]) => key),
      planned.puts.map(([, data]) => data),
      now,
    ]);
  }
}

/** The best hits of a search; `ts_rank_cd` normalized by `relativeScores`. */
export async function searchIndex(
  client: PgClientLike,
  sql: ActiveMemoryStatements,
  query: TextSearchQuery,
): Promise<TextSearchHit[]> {
  if (!(query.limit >= 1) || !isStorable(query.userId)) return [];
  const sessionIds = query.sessionIds?.filter((id) => isStorable(id));
  if (sessionIds !== undefined && sessionIds.length === 0) return [];
  // Two statements: the second gets the tsquery as a value, so the planner sees its words and
  // chooses between the indexes (a tsquery computed in the same statement hides them).
  const built = await client.query(sql.queryOf, [foldText(query.text)]);
  const tsquery = (built.rows[0] as { query?: unknown } | undefined)?.query;
  if (typeof tsquery !== 'string') return [];
  const values: unknown[] = [tsquery, Math.floor(query.limit)];
  if (query.userId !== undefined) values.push(query.userId);
  if (sessionIds !== undefined) values.push(sessionIds);
  const result = await client.query(
    sql.search({ user: query.userId !== undefined, sessions: sessionIds !== undefined }),
    values,
  );
  const rows = result.rows as Array<{ session_id: string; seq: string | number; message_id: string; rank: number }>;
  const scores = relativeScores(rows.map((row) => Number(row.rank)));
  return rows.map((row, index) =>
    Object.freeze({
      sessionId: row.session_id,
      seq: Number(row.seq),
      messageId: row.message_id,
      score: scores[index] as number,
    }),
  );
}
