/**
 * The goaitools exporter (seed-formats.md §4.5): one compact blob per session, written as Go writes
 * it (keys in goaitools' order, `content` a string and left out when empty, `<`, `>` and `&`
 * escaped), leading system messages left out. A target ending in `.json` is one blob; any other
 * target is a directory of `<session id>.json` blobs.
 * @module
 */
import { basename, join } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import type { Message } from '../../message/message.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import type { Session } from '../../session/session.js';
import { isObject } from '../json-text.js';
import type { ExportSummary, Exporter } from '../types.js';
import { writeTarget } from '../write-target.js';

/** JSON as Go's encoding/json writes it: HTML characters and line separators escaped. */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A message kept whole on import (another provider's, or a role OpenAI does not know): written back as it was. */
function verbatim(message: Message): JsonObject | undefined {
  if (typeof message.content === 'string' || message.content.length !== 1) return undefined;
  const [part] = message.content;
  return part?.type === 'raw' && isObject(part.value) && typeof part.value.role === 'string'
    ? (part.value as JsonObject)
    : undefined;
}

/** `message` as an OpenAI Chat message in goaitools' key order; what it cannot hold is listed in `lost`. */
function wireMessage(message: Message, lost: string[]): JsonObject {
  const whole = verbatim(message);
  if (whole !== undefined) return whole;
  const texts: string[] = [];
  const fields: Record<string, JsonValue> = {};
  if (typeof message.content === 'string') texts.push(message.content);
  else {
    for (const part of message.content) {
      if (part.type === 'text') texts.push(part.text);
      else if (
        part.type === 'raw' &&
        part.provider === 'openaiChat' &&
        isObject(part.value) &&
        part.value.type === undefined
      )
        Object.assign(fields, part.value);
      else lost.push(`a ${part.type} part (goaitools content is text only)`);
    }
  }
  const content = texts.join('\n');
  const out: Record<string, JsonValue> = { role: message.role };
  const meta = isObject(message.metadata.goaitools) ? message.metadata.goaitools : {};
  if (content.length > 0) out.content = content;
  else if (meta.contentNull === true) out.content = null;
  if (message.name !== undefined && message.role !== 'tool') out.name = message.name;
  if (message.toolCalls !== undefined)
    out.tool_calls = message.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  if (message.toolCallId !== undefined) out.tool_call_id = message.toolCallId;
  return { ...out, ...fields };
}

/** The blob of `session` and what it could not hold. */
export function sessionBlob(session: Session): { text: string; warnings: string[] } {
  const warnings: string[] = [];
  let start = 0;
  while (start < session.messages.length && session.messages[start]?.role === 'system') start++;
  if (start > 0)
    warnings.push(`${start} leading system message(s) left out: goaitools keeps them in the caller's preamble`);
  const lost: string[] = [];
  const messages = session.messages.slice(start).map((message) => wireMessage(message, lost));
  for (const what of new Set(lost)) warnings.push(`${what} left out`);
  warnings.push('goaitools blobs hold no ids, timestamps, categories or metadata');
  const meta = isObject(session.metadata.goaitools) ? session.metadata.goaitools : {};
  if (Array.isArray(meta.skipped) && meta.skipped.length > 0)
    warnings.push(`${meta.skipped.length} empty message(s) skipped on import were not written back`);
  // Appended context stays pending only while the history is the one imported (§4.5).
  const processed =
    typeof meta.processedLength === 'number' &&
    meta.processedLength > 0 &&
    meta.processedLength <= messages.length &&
    meta.messageCount === messages.length
      ? meta.processedLength
      : messages.length;
  const provider = typeof meta.provider === 'string' && meta.provider.length > 0 ? meta.provider : 'openai';
  return { text: goJson({ version: 1, provider, processed_length: processed, messages }), warnings };
}

async function writeGoaitools(
  sessions: AsyncIterable<Session>,
  target: string,
  base64: boolean,
): Promise<ExportSummary> {
  const single = target.endsWith('.json');
  const files: string[] = [];
  const warnings: { sessionId: string; message: string }[] = [];
  let count = 0;
  for await (const session of sessions) {
    if (single && count > 0)
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${target} holds one goaitools blob; export several sessions to a directory`,
      );
    const { text, warnings: lost } = sessionBlob(session);
    for (const message of lost) warnings.push({ sessionId: session.id, message });
    const name = single ? target : join(target, `${session.id}.json`);
    await writeTarget(name, base64 ? Buffer.from(text, 'utf8').toString('base64') : text);
    files.push(single ? basename(target) : `${session.id}.json`);
    count++;
  }
  return { sessions: count, files, warnings };
}

/** Writes goaitools blobs (raw JSON). */
export const goaitoolsExporter: Exporter = Object.freeze({
  system: 'goaitools',
  describe: 'goaitools ConversationState blobs: one .json file, or a directory of <id>.json',
  write: (sessions: AsyncIterable<Session>, target: string) => writeGoaitools(sessions, target, false),
});

/** The same, base64-encoded as Go's encoding/json stores a `[]byte` field (`--base64`). */
export const goaitoolsBase64Exporter: Exporter = Object.freeze({
  system: 'goaitools-base64',
  describe: 'goaitools ConversationState blobs, base64-encoded as Go stores them inside JSON',
  write: (sessions: AsyncIterable<Session>, target: string) => writeGoaitools(sessions, target, true),
});
