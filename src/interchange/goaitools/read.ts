/**
 * The goaitools importer (seed-formats.md §4): a chat-with-state blob (or a directory of them), its
 * raw OpenAI Chat messages read through `formats.openaiChat.from`. The blob has no ids and no times:
 * ids are derived from its hash and position, times are the file's, and both are flagged.
 * @module
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { ChatstateError, errorMessage } from '../../errors.js';
import { fromOpenaiChat } from '../../formats/openai-chat-from.js';
import type { MessageInput } from '../../message/message.js';
import type { JsonValue } from '../../message/schema.js';
import { compact, digest, json, materialize, problemFrom, sessionIdOr, sessionItem, type Draft } from '../build.js';
import { isObject } from '../json-text.js';
import { expecting, sourceKind } from '../source-path.js';
import type { ImportItem, ImportOptions, ImportRepair, Importer } from '../types.js';
import { readBlob, type StateBlob } from './blob.js';

/** What the importer reads, for its messages. */
const EXPECTED = 'a goaitools ConversationState blob (raw JSON or base64), or a directory of them';
/** What a blob must be, for the problems of one that is not. */
const EXPECTED_FILE =
  'a goaitools ConversationState blob (a JSON object with version 1 and messages, or base64 of one)';

/** Why goaitools could not unmarshal `message` into its struct (it then drops the whole state), or undefined. */
export function unmarshalProblem(message: unknown): string | undefined {
  if (!isObject(message)) return 'is not an object';
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) fields[key.toLowerCase()] = value;
  for (const key of ['role', 'content', 'name', 'tool_call_id']) {
    const value = fields[key];
    if (value !== undefined && value !== null && typeof value !== 'string') return `has a ${key} that is not a string`;
  }
  const calls = fields.tool_calls;
  if (calls !== undefined && calls !== null && !Array.isArray(calls)) return 'has tool_calls that is not an array';
  return undefined;
}

/** A message of another provider: kept whole, as a raw part (§4.4 quirk 6). */
function foreignDraft(message: unknown): MessageInput {
  const role = isObject(message) ? message.role : undefined;
  const kept = role === 'user' || role === 'assistant' ? role : 'system';
  return {
    role: kept,
    ...(kept === 'system' ? { category: 'context' } : {}),
    content: [{ type: 'raw', provider: 'openaiChat', value: json(message) }],
  };
}

function openaiDraft(
  message: unknown,
  index: number,
  callNames: Map<string, string>,
  repairs: ImportRepair[],
): MessageInput | undefined {
  try {
    const [read] = fromOpenaiChat({ messages: [message] } as Parameters<typeof fromOpenaiChat>[0]).messages;
    if (read === undefined) return undefined;
    for (const call of read.toolCalls ?? []) callNames.set(call.id, call.name);
    // Quirk 2: a result has no name; it is its call's.
    const name = read.role === 'tool' && read.toolCallId !== undefined ? callNames.get(read.toolCallId) : undefined;
    const { id: _id, timestamp: _timestamp, metadata: _metadata, ...fields } = read;
    return { ...fields, ...(name === undefined ? {} : { name }) } as MessageInput;
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    repairs.push({
      kind: 'unknown_role',
      message: `Message ${index} could not be read as OpenAI Chat (${errorMessage(error)}): kept verbatim as a raw part`,
    });
    return foreignDraft(message);
  }
}

/** The session item of a checked blob stored in `path`. */
export function blobItem(blob: StateBlob, path: string, modified: string): ImportItem {
  const hash = digest(blob.text);
  const stem = basename(path, extname(path));
  const id = sessionIdOr(stem, blob.text).derived ? `goaitools-${hash}` : stem;
  const repairs: ImportRepair[] = [];
  const foreign = blob.provider !== 'openai';
  if (foreign)
    repairs.push({
      kind: 'foreign_provider',
      message: `Provider ${JSON.stringify(blob.provider)} is not openai: its messages are kept verbatim as raw parts`,
    });
  const callNames = new Map<string, string>();
  const drafts: Draft[] = [];
  const empty: JsonValue[] = [];
  blob.messages.forEach((message, index) => {
    const input = foreign ? foreignDraft(message) : openaiDraft(message, index, callNames, repairs);
    if (input === undefined) {
      // Quirk 1 read literally: a message without content is empty, and chatstate holds no empty message.
      empty.push(json(message));
      repairs.push({
        kind: 'empty_message',
        message: `Skipped message ${index}: it has no content (kept in metadata)`,
      });
      return;
    }
    drafts.push({
      input: {
        ...input,
        id: `gt-${hash}-${index}`,
        timestamp: modified,
        // An explicit `content: null` survives goaitools verbatim: kept so that an export writes it back.
        metadata: {
          goaitools: isObject(message) && message.content === null ? { index, contentNull: true } : { index },
        },
      },
      original: message,
    });
  });
  const { messages, skipped } = materialize(drafts, 'goaitools', repairs);
  const count = blob.messages.length;
  const goaitools = compact({
    provider: blob.provider,
    processedLength: blob.processedLength,
    messageCount: count,
    // Quirk 5: fewer processed than stored means appended context the model has not seen yet.
    pending: blob.processedLength > 0 && blob.processedLength < count ? count - blob.processedLength : undefined,
    processedLengthUnknown: blob.processedLength === 0 && count > 0 ? true : undefined,
    encoding: blob.encoding,
    timestampsAbsent: true,
    idsDerived: true,
    extra: Object.keys(blob.extra).length > 0 ? json(blob.extra) : undefined,
    skipped: empty.length + skipped.length > 0 ? [...empty, ...skipped] : undefined,
  });
  return sessionItem({ id, createdAt: modified, updatedAt: modified, metadata: { goaitools } }, messages, repairs, {
    path,
    record: id,
  });
}

async function* readOne(path: string): AsyncGenerator<ImportItem> {
  let text: string;
  let modified: string;
  try {
    [text, modified] = await Promise.all([readFile(path, 'utf8'), stat(path).then((info) => info.mtime.toISOString())]);
  } catch (error) {
    yield { kind: 'problem', code: 'NOT_FOUND', message: errorMessage(error), source: { path } };
    return;
  }
  const read = readBlob(text);
  if (!read.ok) {
    // Refused whole: the problem says what a blob is.
    const { code, message, line } = expecting(read.problem, EXPECTED_FILE);
    yield { kind: 'problem', code, message, source: { path, line } };
    return;
  }
  const bad = read.blob.messages.findIndex((message) => unmarshalProblem(message) !== undefined);
  if (bad >= 0) {
    yield {
      kind: 'problem',
      code: 'CORRUPT',
      message: `message_unmarshal_failed: messages[${bad}] ${unmarshalProblem(read.blob.messages[bad]) ?? ''} (goaitools drops the whole state)`,
      source: { path, line: 1 },
    };
    return;
  }
  try {
    yield blobItem(read.blob, path, modified);
  } catch (error) {
    yield problemFrom(error, { path });
  }
}

async function* readGoaitools(path: string, options: ImportOptions = {}): AsyncGenerator<ImportItem> {
  const kind = await sourceKind(path, { system: 'goaitools', expected: EXPECTED, kinds: ['file', 'directory'] });
  if (kind === 'file') {
    yield* readOne(path);
    return;
  }
  const names = (await readdir(path, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  for (const name of names) {
    if (options.signal?.aborted === true) return;
    yield* readOne(join(path, name));
  }
}

/** Reads goaitools chat-with-state blobs. */
export const goaitoolsImporter: Importer = Object.freeze({
  system: 'goaitools',
  describe: 'a goaitools ConversationState blob (raw JSON or base64), or a directory of them',
  read: readGoaitools,
});
