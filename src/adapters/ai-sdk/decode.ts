/**
 * Stored chatstate messages read back as UI messages: each group laid out by `./encode.ts` gives
 * back the exact UI message it was written from; any other message (written by chatstate itself,
 * another tool, a compaction summary) is read as the nearest UI message (`./foreign.ts`).
 * @module
 */
import { toolResultOutput } from '../../formats/ai-sdk-output.js';
import { isRecord, parseJson } from '../../formats/wire-json.js';
import { ChatstateError, DataError } from '../../errors.js';
import type { Message } from '../../message/message.js';
import type { ContentPart, JsonObject, JsonValue } from '../../message/schema.js';
import { foreignUiMessages } from './foreign.js';
import { LAYOUT_KEY, isPlaceholder, type GroupHead, type StoredPart } from './stored-layout.js';
import type { UiMessageJson, UiPartJson } from './ui-json.js';

/** A UI message and the stored messages it was read from. */
export interface StoredUiMessage {
  readonly message: UiMessageJson;
  readonly stored: readonly Message[];
}

function corrupt(message: Message, reason: string): DataError {
  return new DataError('CORRUPT', `Stored message ${message.id} is not a readable UI message: ${reason}`, {
    details: { messageId: message.id },
  });
}

/** The layout of a group's head, or undefined when `message` is not one. */
function headOf(message: Message): GroupHead | undefined {
  const layout = message.metadata[LAYOUT_KEY];
  if (!isRecord(layout) || typeof layout['id'] !== 'string' || !Array.isArray(layout['parts'])) return undefined;
  if (typeof layout['count'] !== 'number') return undefined;
  return layout as unknown as GroupHead;
}

function memberOf(message: Message, head: string): boolean {
  const layout = message.metadata[LAYOUT_KEY];
  return isRecord(layout) && layout['of'] === head;
}

/** Reads content parts of one step message in order (the placeholder is skipped). */
class Cursor {
  #index = 0;
  constructor(
    private readonly message: Message,
    private readonly parts: readonly ContentPart[],
  ) {}
  next(): ContentPart {
    while (this.#index < this.parts.length && isPlaceholder(this.parts[this.#index] as ContentPart)) this.#index += 1;
    const part = this.parts[this.#index];
    if (part === undefined) throw corrupt(this.message, 'a part of it is missing');
    this.#index += 1;
    return part;
  }
}

function readPart(
  stored: StoredPart,
  steps: readonly Message[],
  cursors: readonly Cursor[],
  group: readonly Message[],
): UiPartJson {
  const part: Record<string, JsonValue> = { ...stored.part };
  const moved = new Set(stored.moved ?? []);
  if (moved.size === 0) return part as UiPartJson;
  const stepIndex = stored.step ?? 0;
  const step = steps[stepIndex];
  const cursor = cursors[stepIndex];
  if (step === undefined || cursor === undefined) throw corrupt(group[0] as Message, `step ${stepIndex} is missing`);
  if (moved.has('text') || moved.has('url')) {
    const content = cursor.next();
    if (moved.has('text')) {
      if (content.type !== 'text' && content.type !== 'reasoning') throw corrupt(step, 'a text part is missing');
      part['text'] = content.text;
    } else {
      if (content.type !== 'file' || content.url === undefined) throw corrupt(step, 'a file part is missing');
      part['url'] = content.url;
    }
    if (moved.has('providerMetadata')) {
      if (content.providerOptions === undefined) throw corrupt(step, 'provider metadata is missing');
      part['providerMetadata'] = content.providerOptions;
    }
  }
  const callId = part['toolCallId'];
  const call = step.toolCalls?.find((item) => item.id === callId);
  if (moved.has('input')) {
    const parsed = call === undefined ? undefined : parseJson(call.arguments);
    if (parsed === undefined || !parsed.ok) throw corrupt(step, `the input of tool call ${String(callId)} is missing`);
    part['input'] = parsed.value;
  }
  if (moved.has('callProviderMetadata')) {
    if (call?.providerOptions === undefined)
      throw corrupt(step, `the options of tool call ${String(callId)} are missing`);
    part['callProviderMetadata'] = call.providerOptions;
  }
  if (moved.has('output') || moved.has('errorText')) {
    const result = group.find((message) => message.role === 'tool' && message.toolCallId === callId);
    if (result === undefined) throw corrupt(step, `the result of tool call ${String(callId)} is missing`);
    const output = toolResultOutput(result, []);
    if (moved.has('output') && (output.type === 'text' || output.type === 'json'))
      part['output'] = output.value as JsonValue;
    else if (moved.has('errorText') && output.type === 'error-text') part['errorText'] = output.value;
    else throw corrupt(result, `its ${output.type} output is not what the UI part needs`);
  }
  return part as UiPartJson;
}

/** The UI message of a group, and how many stored messages it spans. */
function readGroup(messages: readonly Message[], start: number, layout: GroupHead): StoredUiMessage {
  const head = messages[start] as Message;
  const group = messages.slice(start, start + layout.count);
  if (group.length !== layout.count || !group.slice(1).every((message) => memberOf(message, head.id)))
    throw corrupt(head, `its group of ${layout.count} messages is incomplete`);
  const steps = group.filter((message) => message.role !== 'tool');
  const cursors = steps.map((step) => new Cursor(step, typeof step.content === 'string' ? [] : step.content));
  const parts = layout.parts.map((stored) => readPart(stored, steps, cursors, group));
  const role = head.role;
  if (role === 'tool') throw corrupt(head, 'a tool message cannot head a UI message');
  return {
    message: {
      id: layout.id,
      role,
      parts,
      ...(layout.metadata === undefined ? {} : { metadata: layout.metadata }),
      ...(layout.extra === undefined ? {} : { extra: layout.extra as JsonObject }),
    },
    stored: group,
  };
}

/** The UI messages of a stored history, each with the stored messages it came from, in order. */
export function decodeUiMessages(messages: readonly Message[]): StoredUiMessage[] {
  const out: StoredUiMessage[] = [];
  let foreign: Message[] = [];
  const flush = (): void => {
    if (foreign.length > 0) out.push(...foreignUiMessages(foreign));
    foreign = [];
  };
  for (let index = 0; index < messages.length;) {
    const message = messages[index] as Message;
    const layout = headOf(message);
    if (layout === undefined) {
      foreign.push(message);
      index += 1;
      continue;
    }
    let read: StoredUiMessage;
    try {
      read = readGroup(messages, index, layout);
    } catch (error) {
      // A group another writer changed (a compaction cut it, a tool output was truncated) is
      // read as plain chatstate messages: the UI gets the nearest message instead of no chat.
      if (!ChatstateError.hasCode(error, 'CORRUPT')) throw error;
      foreign.push(message);
      index += 1;
      continue;
    }
    flush();
    out.push(read);
    index += read.stored.length;
  }
  flush();
  return out;
}
