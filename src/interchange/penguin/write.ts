/**
 * The Penguin exporter (seed-formats.md §1.9): one `<id>.json` per session (2-space indentation,
 * ASCII escaping, exactly Penguin's keys), agents' sessions in their subdirectory, and each
 * directory's `session_index.json` written last. `penguin-legacy` leaves out the keys Penguin
 * before 2026-05 (and 2025-09) refuses.
 * @module
 */
import { join } from 'node:path';
import { isValidId } from '../../ids.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import type { Session } from '../../session/session.js';
import { isObject } from '../json-text.js';
import { checkTimeZone, processTimeZone } from '../timestamps.js';
import type { ExportSummary, Exporter } from '../types.js';
import { writeTarget } from '../write-target.js';
import { naiveTime, penguinMessage } from './write-message.js';

const INDEX = 'session_index.json';
const LINKS = ['continuedFrom', 'continuedTo', 'continuationIndex', 'recoveredFrom'] as const;

/** JSON as Python's `json.dump(…, indent=2)` writes it: non-ASCII escaped as `\uXXXX`. */
export function pythonJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A chatstate link as the Penguin id it names (an agent's sessions are qualified `<agent>.<id>` on import). */
function penguinLink(value: unknown, agent: string | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  return agent !== undefined && value.startsWith(`${agent}.`) ? value.slice(agent.length + 1) : value;
}

interface Written {
  readonly directory: string;
  readonly id: string;
  readonly entry: JsonObject;
}

function sessionFile(
  session: Session,
  legacy: boolean,
  warn: (message: string) => void,
): { agent?: string; id: string; file: JsonObject; entry: JsonObject } {
  const penguin = isObject(session.metadata.penguin) ? session.metadata.penguin : {};
  const agent =
    typeof penguin.agentDirectory === 'string' && isValidId(penguin.agentDirectory)
      ? penguin.agentDirectory
      : undefined;
  const id = typeof penguin.sessionId === 'string' && isValidId(penguin.sessionId) ? penguin.sessionId : session.id;
  const timeZone =
    typeof penguin.timeZone === 'string' && safeZone(penguin.timeZone) ? penguin.timeZone : processTimeZone();
  const lost: string[] = [];
  const messages = session.messages.map((message) => penguinMessage(message, timeZone, legacy, lost));
  for (const what of new Set(lost)) warn(what);
  if (isObject(penguin.extra))
    warn(`top-level keys Penguin refuses were left out: ${Object.keys(penguin.extra).join(', ')}`);

  const metadata: Record<string, JsonValue> = isObject(penguin.metadata) ? { ...(penguin.metadata as JsonObject) } : {};
  const from = penguinLink(session.metadata.continuedFrom, agent);
  const to = penguinLink(session.metadata.continuedTo, agent);
  const recovered = penguinLink(session.metadata.recoveredFrom, agent);
  if (from !== undefined) {
    metadata.continued_from = from;
    metadata.continuation_index ??= 1;
  }
  if (to !== undefined) metadata.continued_to = to;
  if (recovered !== undefined) metadata.recovered_from = recovered;
  const tokens = messages.reduce((sum, message) => sum + (typeof message.tokens === 'number' ? message.tokens : 0), 0);
  metadata.message_count = messages.length;
  metadata.token_count = tokens;

  // What only chatstate holds, under metadata (Penguin refuses other top-level keys).
  const own = Object.fromEntries(
    Object.entries(session.metadata).filter(
      ([key]) => key !== 'penguin' && !(LINKS as readonly string[]).includes(key),
    ),
  );
  const inferredAgent =
    typeof metadata.agent_id === 'string' && metadata.agent_id.length > 0 ? metadata.agent_id : agent;
  const chatstate: Record<string, JsonValue> = {};
  if (id !== session.id && agent === undefined) chatstate.id = session.id;
  if (session.agentId !== undefined && session.agentId !== inferredAgent) chatstate.agentId = session.agentId;
  if (session.userId !== undefined) chatstate.userId = session.userId;
  if (Object.keys(session.variables).length > 0) chatstate.variables = session.variables as JsonObject;
  if (Object.keys(own).length > 0) chatstate.metadata = own as JsonObject;
  if (Object.keys(chatstate).length > 0) metadata.chatstate = chatstate;

  const createdAt = naiveTime(penguin.createdAt, session.createdAt, timeZone);
  const lastActive = naiveTime(penguin.lastActive, session.updatedAt, timeZone);
  const records = isObject(penguin.records) ? penguin.records : {};
  const file: Record<string, JsonValue> = { id, created_at: createdAt, last_active: lastActive, metadata, messages };
  if (legacy) {
    if (Object.keys(records).length > 0) warn('the record lists were left out (legacy Penguin refuses them)');
  } else {
    for (const key of ['llm_request_lifecycles', 'tool_call_records', 'tool_result_records']) {
      file[key] = Array.isArray(records[key]) ? (records[key] as JsonValue[]) : [];
    }
  }
  const indexed = isObject(penguin.index) ? penguin.index : {};
  const title =
    typeof metadata.title === 'string'
      ? metadata.title
      : typeof indexed.title === 'string'
        ? indexed.title
        : `Session ${id.slice(-8)}`;
  const entry: Record<string, JsonValue> = {
    created_at: createdAt,
    last_active: lastActive,
    message_count: messages.length,
    token_count: tokens,
    title,
  };
  if (from !== undefined) entry.continued_from = from;
  if (to !== undefined) entry.continued_to = to;
  if (recovered !== undefined) entry.recovered_from = recovered;
  for (const key of ['source_session_tokens', 'total_chain_tokens'] as const)
    if (typeof indexed[key] === 'number') entry[key] = indexed[key];
  return { ...(agent === undefined ? {} : { agent }), id, file, entry };
}

function safeZone(zone: string): boolean {
  try {
    checkTimeZone(zone);
    return true;
  } catch {
    return false;
  }
}

async function writePenguin(sessions: AsyncIterable<Session>, target: string, legacy: boolean): Promise<ExportSummary> {
  const files: string[] = [];
  const warnings: { sessionId: string; message: string }[] = [];
  const written: Written[] = [];
  for await (const session of sessions) {
    const { agent, id, file, entry } = sessionFile(session, legacy, (message) =>
      warnings.push({ sessionId: session.id, message }),
    );
    const directory = agent ?? '';
    const name = join(directory, `${id}.json`);
    await writeTarget(join(target, name), pythonJson(file));
    files.push(name);
    written.push({ directory, id, entry });
  }
  // Each index last, so its mtime is the newest (HEAD Penguin then trusts it rather than rebuilding).
  const directories = [...new Set(written.map((item) => item.directory))];
  if (directories.length === 0) directories.push('');
  for (const directory of directories) {
    const index = Object.fromEntries(
      written.filter((item) => item.directory === directory).map((item) => [item.id, item.entry]),
    );
    const name = join(directory, INDEX);
    await writeTarget(join(target, name), pythonJson(index));
    files.push(name);
  }
  return { sessions: written.length, files, warnings };
}

/** Writes sessions as a Penguin `conversations/` directory (HEAD layout). */
export const penguinExporter: Exporter = Object.freeze({
  system: 'penguin',
  describe: 'a Penguin conversations/ directory: <id>.json per session, session_index.json written last',
  write: (sessions: AsyncIterable<Session>, target: string) => writePenguin(sessions, target, false),
});

/** The same for Penguin before 2026-05: no record lists and the seven seed-era message keys (`--penguin-legacy`). */
export const penguinLegacyExporter: Exporter = Object.freeze({
  system: 'penguin-legacy',
  describe: 'a Penguin conversations/ directory readable by Penguin before 2026-05 (seed-era keys only)',
  write: (sessions: AsyncIterable<Session>, target: string) => writePenguin(sessions, target, true),
});
