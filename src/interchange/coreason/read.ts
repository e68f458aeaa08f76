/**
 * The Coreason importer (seed-formats.md §3): a `SessionState` dump (v0.17.0: agent, user,
 * history of interactions, variables), or the older shape with a `context` key. Interactions have
 * no role and (in v0.17.0) no time: each is a user message, timed between `created_at` and
 * `updated_at` and flagged.
 * @module
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../errors.js';
import { isValidOwnerId } from '../../ids.js';
import type { MessageInput } from '../../message/message.js';
import { RESERVED_KEYS } from '../../session/session-checks.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import {
  compact,
  digest,
  json,
  materialize,
  messageIdOr,
  problemFrom,
  sessionIdOr,
  sessionItem,
  type Draft,
} from '../build.js';
import { isObject, lineOfKey, parseJson, type JsonProblem } from '../json-text.js';
import { expecting, sourceKind } from '../source-path.js';
import { readEpochSeconds, readTimestamp } from '../timestamps.js';
import type { ImportItem, ImportOptions, ImportRepair, Importer, SourcePlace } from '../types.js';

/** What the importer reads, for its messages. */
const EXPECTED = 'a Coreason SessionState JSON dump (state.dump() / to_json()), or a directory of them (*.json)';
/** What a dump must hold, for the problems of one that does not. */
const EXPECTED_FILE = 'a Coreason SessionState dump (a JSON object with agent_id, user_id, created_at, history)';

/** The keys of a v0.17.0 `SessionState`, in field order. */
const STATE_KEYS = ['id', 'agent_id', 'user_id', 'created_at', 'updated_at', 'history', 'variables'];
/** The keys of the older shape (`ecdc0c64`) read into fields (its `context` and `processor` are kept whole). */
const OLD_KEYS = ['last_updated_at', 'history', 'context_variables'];

type Checked<T> = { ok: true; value: T } | { ok: false; problem: JsonProblem };

/** A Coreason time (quirk 3): `Z`, `±HH:MM`, naive (read as UTC, flagged), 0–6 fractional digits, epoch numbers. */
function timeOf(value: unknown): { iso: string; assumed: boolean } | undefined {
  if (typeof value === 'number') {
    const iso = readEpochSeconds(value);
    return iso === undefined ? undefined : { iso, assumed: false };
  }
  if (typeof value !== 'string') return undefined;
  const read = readTimestamp(value, 'UTC');
  return read === undefined ? undefined : { iso: read.iso, assumed: read.assumedZone !== undefined };
}

function requireTime(
  text: string,
  data: Record<string, unknown>,
  key: string,
): Checked<{ iso: string; assumed: boolean }> {
  const read = timeOf(data[key]);
  if (read !== undefined) return { ok: true, value: read };
  const line = data[key] === undefined ? 1 : lineOfKey(text, key);
  const what = data[key] === undefined ? 'is missing' : 'must be an ISO 8601 time or epoch seconds';
  return { ok: false, problem: { code: 'INVALID_ARGUMENT', message: `${JSON.stringify(key)} ${what}`, line } };
}

function requireString(text: string, data: Record<string, unknown>, key: string): Checked<string> {
  const value = data[key];
  if (typeof value === 'string') return { ok: true, value };
  const line = value === undefined ? 1 : lineOfKey(text, key);
  const what = value === undefined ? 'is missing' : 'must be a string';
  return { ok: false, problem: { code: 'INVALID_ARGUMENT', message: `${JSON.stringify(key)} ${what}`, line } };
}

/** Spreads `count` times evenly from `from` to `to`, in order (quirk 2); all at `from` when `to` is earlier. */
function spread(from: string, to: string, count: number): string[] {
  const start = Date.parse(from);
  const span = Math.max(0, Date.parse(to) - start);
  return Array.from({ length: count }, (_, index) =>
    new Date(start + (count <= 1 ? 0 : Math.floor((span * index) / (count - 1)))).toISOString(),
  );
}

/** The text of an input: a string stays text; other JSON is its JSON text (and kept verbatim in metadata). */
function contentOf(input: unknown): { content: string; verbatim?: JsonValue } {
  return typeof input === 'string' ? { content: input } : { content: JSON.stringify(input), verbatim: json(input) };
}

interface Parsed {
  readonly id: unknown;
  readonly agentId: string;
  readonly userId: string;
  readonly created: { iso: string; assumed: boolean };
  readonly updated: { iso: string; assumed: boolean };
  readonly history: unknown[];
  readonly variables: unknown;
  readonly shape: 'v0.17' | 'context';
  readonly extra: Record<string, unknown>;
}

function checkState(text: string, data: Record<string, unknown>): Checked<Parsed> {
  const old = isObject(data.context);
  const context = old ? (data.context as Record<string, unknown>) : data;
  const agent = requireString(text, context, 'agent_id');
  if (!agent.ok) return agent;
  let user: Checked<string>;
  if (old) {
    const who = isObject(context.user) ? context.user : {};
    user = requireString(text, who, 'user_id');
  } else user = requireString(text, data, 'user_id');
  if (!user.ok) return user;
  const created = requireTime(text, context, 'created_at');
  if (!created.ok) return created;
  let updated = created.value;
  if (old) updated = timeOf(data.last_updated_at) ?? created.value;
  else {
    const read = requireTime(text, data, 'updated_at');
    if (!read.ok) return read;
    updated = read.value;
  }
  const history = data.history ?? [];
  if (!Array.isArray(history))
    return {
      ok: false,
      problem: { code: 'INVALID_ARGUMENT', message: '"history" must be an array', line: lineOfKey(text, 'history') },
    };
  const variablesKey = old ? 'context_variables' : 'variables';
  const variables = data[variablesKey] ?? {};
  if (!isObject(variables))
    return {
      ok: false,
      problem: {
        code: 'INVALID_ARGUMENT',
        message: `${JSON.stringify(variablesKey)} must be an object`,
        line: lineOfKey(text, variablesKey),
      },
    };
  const known = old ? OLD_KEYS : STATE_KEYS;
  return {
    ok: true,
    value: {
      id: old ? context.session_id : data.id,
      agentId: agent.value,
      userId: user.value,
      created: created.value,
      updated,
      history,
      variables,
      shape: old ? 'context' : 'v0.17',
      extra: Object.fromEntries(Object.entries(data).filter(([key]) => !known.includes(key))),
    },
  };
}

/** The drafts of one interaction: its input as a user message, and (older shape) its output as an assistant message. */
function interactionDrafts(
  raw: unknown,
  index: number,
  at: string,
  sessionId: string,
  shape: Parsed['shape'],
  repairs: ImportRepair[],
): Draft[] {
  const interaction = isObject(raw) ? raw : {};
  const rawId = shape === 'context' ? interaction.interaction_id : interaction.id;
  const id = messageIdOr(rawId, `${sessionId}.${index}`);
  const own = timeOf(interaction.timestamp);
  const { id: _id, interaction_id: _old, input, output, timestamp: _time, ...rest } = interaction;
  const coreason = compact({
    interactionId: id.derived ? json(rawId) : undefined,
    idDerived: id.derived ? true : undefined,
    timestampDerived: own === undefined ? true : undefined,
    ...(Object.keys(rest).length > 0 ? (rest as JsonObject) : {}),
  });
  if (!isObject(raw))
    repairs.push({
      kind: 'unreadable_interaction',
      message: `Interaction ${index} is not an object: kept as its JSON text`,
    });
  const timestamp = own?.iso ?? at;
  const drafts: Draft[] = [];
  const read = input === undefined || input === null ? undefined : contentOf(input);
  const userInput: MessageInput = {
    id: id.id,
    role: 'user',
    content: isObject(raw) ? (read?.content ?? '') : JSON.stringify(raw),
    timestamp,
    metadata: { coreason: read?.verbatim === undefined ? coreason : { ...coreason, input: read.verbatim } },
  };
  drafts.push({ input: userInput, original: raw });
  if (output !== undefined && output !== null) {
    const reply = contentOf(isObject(output) && typeof output.text === 'string' ? output.text : output);
    drafts.push({
      input: {
        id: `${id.id}.output`,
        role: 'assistant',
        content: reply.content,
        timestamp,
        metadata: { coreason: { output: json(output) } },
      },
      original: output,
    });
  }
  return drafts;
}

/** The session item of a dump read from `text`. */
export function coreasonItem(text: string, source: SourcePlace): ImportItem {
  // A file refused whole: the problem says what a dump is.
  const refused = (found: JsonProblem): ImportItem => {
    const { code, message, line } = expecting(found, EXPECTED_FILE);
    return { kind: 'problem', code, message, source: { ...source, line } };
  };
  const parsed = parseJson(text);
  if (!parsed.ok) return refused(parsed.problem);
  if (!isObject(parsed.value))
    return refused({ code: 'INVALID_ARGUMENT', message: 'A SessionState dump must be a JSON object', line: 1 });
  const checked = checkState(text, parsed.value);
  if (!checked.ok) return refused(checked.problem);
  const state = checked.value;
  const repairs: ImportRepair[] = [];
  // Quirk 6: Coreason would invent a random id; a hash of the dump is the same on every import.
  const id =
    state.id === undefined ? { id: `coreason-${digest(text, 16)}`, derived: true } : sessionIdOr(state.id, text);
  const times = spread(state.created.iso, state.updated.iso, state.history.length);
  const drafts = state.history.flatMap((raw, index) =>
    interactionDrafts(raw, index, times[index] ?? state.created.iso, id.id, state.shape, repairs),
  );
  const { messages, skipped } = materialize(drafts, 'coreason', repairs);
  // Names a session refuses as variable names (they would reach Object's members) stay in metadata.
  const variables = Object.fromEntries(
    Object.entries(state.variables as JsonObject).filter(([key]) => !RESERVED_KEYS.has(key)),
  );
  const reserved = Object.fromEntries(
    Object.entries(state.variables as JsonObject).filter(([key]) => RESERVED_KEYS.has(key)),
  );
  if (Object.keys(reserved).length > 0)
    repairs.push({
      kind: 'reserved_variable',
      message: `Variables ${Object.keys(reserved).join(', ')} kept in metadata: reserved names`,
    });
  const owner = (value: string) => (isValidOwnerId(value) ? value : undefined);
  const agentId = owner(state.agentId);
  const userId = owner(state.userId);
  const coreason = compact({
    shape: state.shape,
    sessionId: id.derived ? json(state.id ?? null) : undefined,
    idDerived: id.derived ? true : undefined,
    agentId: agentId === undefined ? state.agentId : undefined,
    userId: userId === undefined ? state.userId : undefined,
    timesAssumedUtc: state.created.assumed || state.updated.assumed ? true : undefined,
    timestampsSpread: state.shape === 'v0.17' && state.history.length > 0 ? true : undefined,
    extra: Object.keys(state.extra).length > 0 ? json(state.extra) : undefined,
    variables: Object.keys(reserved).length > 0 ? reserved : undefined,
    skipped: skipped.length > 0 ? skipped : undefined,
  });
  return sessionItem(
    {
      id: id.id,
      createdAt: state.created.iso,
      updatedAt: state.updated.iso,
      ...(agentId === undefined ? {} : { agentId }),
      ...(userId === undefined ? {} : { userId }),
      variables,
      metadata: { coreason },
    },
    messages,
    repairs,
    { ...source, record: id.id },
  );
}

async function* readOne(path: string): AsyncGenerator<ImportItem> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    yield { kind: 'problem', code: 'NOT_FOUND', message: errorMessage(error), source: { path } };
    return;
  }
  try {
    yield coreasonItem(text, { path });
  } catch (error) {
    yield problemFrom(error, { path });
  }
}

async function* readCoreason(path: string, options: ImportOptions = {}): AsyncGenerator<ImportItem> {
  const kind = await sourceKind(path, { system: 'coreason', expected: EXPECTED, kinds: ['file', 'directory'] });
  if (kind === 'file') {
    yield* readOne(path);
    return;
  }
  const names = (await readdir(path, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => entry.name)
    .sort();
  for (const name of names) {
    if (options.signal?.aborted === true) return;
    yield* readOne(join(path, name));
  }
}

/** Reads Coreason `SessionState` dumps. */
export const coreasonImporter: Importer = Object.freeze({
  system: 'coreason',
  describe: 'a Coreason SessionState JSON dump (state.dump() / to_json()), or a directory of them',
  read: readCoreason,
});
