/**
 * One Penguin session file (seed-formats.md §1.2, §1.5, §1.7) checked and mapped: continuation and
 * recovery links into chatstate's `metadata.continuedFrom` / `continuedTo` / `continuationIndex` /
 * `recoveredFrom`, the copies a continuation carries marked, everything else kept under
 * `metadata.penguin`.
 * @module
 */
import { isValidId } from '../../ids.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { compact, json, materialize, sessionIdOr, sessionItem, type Draft } from '../build.js';
import { isObject, parseJson, wrongType, type JsonProblem } from '../json-text.js';
import { readNaiveLocal } from '../timestamps.js';
import type { ImportItem, ImportRepair, SourcePlace } from '../types.js';
import { penguinCategoryOf, penguinDraft } from './message.js';

/** The five session keys and the three record lists (§1.2); anything else is kept as `penguin.extra`. */
export const SESSION_KEYS = ['id', 'created_at', 'last_active', 'metadata', 'messages'] as const;
/** The record lists of HEAD files (2026-05 on). */
export const RECORD_KEYS = ['llm_request_lifecycles', 'tool_call_records', 'tool_result_records'] as const;

/** A session file that parsed and has the right top-level types. */
export interface PenguinFile {
  readonly data: Record<string, unknown> & { messages: unknown[] };
}

/** `text` as a Penguin session, or why not (a syntax error is `CORRUPT`, a wrong type `INVALID_ARGUMENT`). */
export function checkSessionFile(text: string): { ok: true; file: PenguinFile } | { ok: false; problem: JsonProblem } {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const data = parsed.value;
  if (!isObject(data))
    return {
      ok: false,
      problem: { code: 'INVALID_ARGUMENT', message: 'A session file must hold a JSON object', line: 1 },
    };
  if (!Array.isArray(data.messages)) return { ok: false, problem: wrongType(text, 'messages', 'an array') };
  if (data.metadata !== undefined && !isObject(data.metadata))
    return { ok: false, problem: wrongType(text, 'metadata', 'an object') };
  for (const key of ['id', 'created_at', 'last_active'] as const) {
    if (data[key] !== undefined && typeof data[key] !== 'string')
      return { ok: false, problem: wrongType(text, key, 'a string') };
  }
  for (const key of RECORD_KEYS) {
    if (data[key] !== undefined && !Array.isArray(data[key]))
      return { ok: false, problem: wrongType(text, key, 'an array') };
  }
  return { ok: true, file: { data: data as PenguinFile['data'] } };
}

/** Where a session file sits and how its ids and times are read. */
export interface SessionContext {
  /** The file's stem (the id Penguin would use). */
  readonly stem: string;
  /** The per-agent subdirectory, for sessions outside the root store. */
  readonly agentDirectory?: string;
  readonly timeZone: string;
  /** Its `session_index.json` entry, kept verbatim. */
  readonly indexEntry?: JsonValue;
  /** The file's modification time, for a session without readable times. */
  readonly modified: string;
  /** Depth of a Penguin session id in its chain (1 for a direct continuation of a root). */
  readonly depthOf: (penguinId: string) => number;
  /** Set when the backup was imported instead of the primary: why. */
  readonly restoredFromBackup?: { readonly reason: string; readonly line?: number };
  readonly source: SourcePlace;
}

/** The chatstate id of a Penguin session id in a store (ids repeat across agents: qualified by the agent). */
export function chatstateIdOf(penguinId: string, agentDirectory: string | undefined): string {
  return sessionIdOr(agentDirectory === undefined ? penguinId : `${agentDirectory}.${penguinId}`, penguinId).id;
}

function linkIds(
  metadata: Record<string, unknown>,
  context: SessionContext,
): { links: JsonObject; continuedFrom?: string } {
  const links: Record<string, JsonValue> = {};
  const from = metadata.continued_from;
  if (typeof from === 'string' && from.length > 0) {
    links.continuedFrom = chatstateIdOf(from, context.agentDirectory);
    links.continuationIndex = context.depthOf(from) + 1;
  }
  if (typeof metadata.continued_to === 'string' && metadata.continued_to.length > 0)
    links.continuedTo = chatstateIdOf(metadata.continued_to, context.agentDirectory);
  if (typeof metadata.recovered_from === 'string' && metadata.recovered_from.length > 0)
    links.recoveredFrom = chatstateIdOf(metadata.recovered_from, context.agentDirectory);
  return { links, ...(typeof from === 'string' && from.length > 0 ? { continuedFrom: from } : {}) };
}

/** Marks the copies a continuation starts with (every SYSTEM and CONTEXT message, then the marker) as such (quirk 12). */
function markCopies(drafts: Draft[], raws: readonly unknown[], source: string, sourceId: string): Draft[] {
  const marker = raws.findIndex(
    (raw) => isObject(raw) && isObject(raw.metadata) && raw.metadata.type === 'session_transition',
  );
  if (marker < 0) return drafts;
  return drafts.map((draft, index) => {
    const raw = raws[index];
    const name = isObject(raw) ? penguinCategoryOf(raw.category) : undefined;
    if (index > marker || (index < marker && name !== 'SYSTEM' && name !== 'CONTEXT')) return draft;
    const metadata: Record<string, JsonValue> = { ...(draft.input.metadata as JsonObject | undefined) };
    const penguin = isObject(metadata.penguin) ? metadata.penguin : {};
    metadata.penguin = { ...penguin, copiedFrom: source };
    // The marker is a transition marker in chatstate's sense too: a later continuation does not carry it.
    if (index === marker) Object.assign(metadata, { transition: true, continuedFrom: sourceId });
    return { ...draft, input: { ...draft.input, metadata } };
  });
}

/** The import item of a checked session file. */
export function penguinSessionItem(file: PenguinFile, context: SessionContext): ImportItem {
  const { data } = file;
  const repairs: ImportRepair[] = [];
  const penguinId = typeof data.id === 'string' && data.id.length > 0 ? data.id : context.stem;
  const metadata = (data.metadata ?? {}) as Record<string, unknown>;
  const chatstate = isObject(metadata.chatstate) ? metadata.chatstate : {};
  // A chatstate id Penguin could not hold as a file name, kept by the exporter.
  const id =
    context.agentDirectory === undefined && isValidId(chatstate.id)
      ? chatstate.id
      : chatstateIdOf(penguinId, context.agentDirectory);
  const created = typeof data.created_at === 'string' ? readNaiveLocal(data.created_at, context.timeZone) : undefined;
  const active = typeof data.last_active === 'string' ? readNaiveLocal(data.last_active, context.timeZone) : undefined;
  const createdAt = created?.iso ?? context.modified;

  let fallbackTime = createdAt;
  const drafts: Draft[] = data.messages.map((raw, index) => {
    const draft = penguinDraft(raw, { sessionId: id, index, timeZone: context.timeZone, fallbackTime, repairs });
    fallbackTime = draft.input.timestamp ?? fallbackTime;
    return draft;
  });
  const { links, continuedFrom } = linkIds(metadata, context);
  const marked =
    continuedFrom === undefined
      ? drafts
      : markCopies(drafts, data.messages, continuedFrom, links.continuedFrom as string);
  const { messages, skipped } = materialize(marked, 'penguin', repairs);

  const extra = Object.fromEntries(
    Object.entries(data).filter(
      ([key]) =>
        !(SESSION_KEYS as readonly string[]).includes(key) && !(RECORD_KEYS as readonly string[]).includes(key),
    ),
  );
  const records = Object.fromEntries(
    RECORD_KEYS.filter((key) => Array.isArray(data[key]) && (data[key] as unknown[]).length > 0).map((key) => [
      key,
      json(data[key]),
    ]),
  );
  const { chatstate: _chatstate, ...penguinMetadata } = metadata;
  const penguin = compact({
    sessionId: penguinId === id ? undefined : penguinId,
    idFromFileName: typeof data.id === 'string' && data.id.length > 0 ? undefined : true,
    agentDirectory: context.agentDirectory,
    createdAt: json(data.created_at),
    lastActive: json(data.last_active),
    timeZone: context.timeZone,
    metadata: json(penguinMetadata),
    index: context.indexEntry,
    records: Object.keys(records).length > 0 ? json(records) : undefined,
    extra: Object.keys(extra).length > 0 ? json(extra) : undefined,
    skipped: skipped.length > 0 ? skipped : undefined,
    restoredFromBackup: context.restoredFromBackup === undefined ? undefined : json(context.restoredFromBackup),
  });
  if (context.restoredFromBackup !== undefined) {
    repairs.unshift({
      kind: 'restored_from_backup',
      message: `Imported ${context.stem}.json.bak (one save behind): the primary ${context.restoredFromBackup.reason}`,
    });
  }
  const agentId =
    typeof chatstate.agentId === 'string'
      ? chatstate.agentId
      : typeof metadata.agent_id === 'string' && metadata.agent_id.length > 0
        ? metadata.agent_id
        : context.agentDirectory;
  return sessionItem(
    {
      id,
      createdAt,
      updatedAt: active?.iso ?? messages.at(-1)?.timestamp ?? createdAt,
      ...(agentId === undefined ? {} : { agentId }),
      ...(typeof chatstate.userId === 'string' ? { userId: chatstate.userId } : {}),
      ...(isObject(chatstate.variables) ? { variables: chatstate.variables as JsonObject } : {}),
      metadata: {
        ...(isObject(chatstate.metadata) ? (chatstate.metadata as JsonObject) : {}),
        ...links,
        penguin,
      },
    },
    messages,
    repairs,
    context.source,
  );
}
