/**
 * OpenAI Agents session items read into chatstate message drafts. Both SDKs store the idea of an
 * ordered list of input items, spelled two ways: the Python SDK's Responses input items (`call_id`,
 * `function_call_output`, `summary[]`) and the JS SDK's `AgentInputItem`s (`callId`,
 * `function_call_result`, `content[]` summaries, `providerData`). Each item is read by what it says,
 * so one list may mix both.
 *
 * Messages become messages; a run of function calls joins the assistant message before it (or
 * becomes one); each result becomes a tool message. Reasoning and item kinds chatstate does not
 * model (hosted tool calls, computer calls, compaction, …) are kept verbatim in the metadata of the
 * next message (`openaiAgents.before`), or of the last one (`openaiAgents.after`). Fields and parts
 * with no chatstate equivalent are kept verbatim beside what was read.
 *
 * Both directions live here, for the importer and the `chatstate/openai-agents` session alike:
 * `mapItems` reads items into messages (with `exact`, so that nothing needs guessing back), and
 * `messageItems` gives a message's items back (see `./convert.ts` for the session's use of both).
 * @module
 */
import { defineField } from '../../internal/define-field.js';
import { Message, type MessageInput } from '../../message/message.js';
import type { Content, JsonValue, ToolCallInput } from '../../message/schema.js';
import { messageIdOr, type Draft } from '../build.js';
import { validToolCallId } from '../import-ids.js';
import { isObject } from '../json-text.js';
import type { ImportRepair } from '../types.js';
import { Unreadable, json, readContent, readExactContent, writeContent } from './content.js';

/** One item as the source holds it, with what the source says about where and when. */
export interface SourceItem {
  /** The parsed item (anything: it is checked here). */
  readonly value: unknown;
  /** The id of a message made from this item when the item has none (deterministic). */
  readonly fallbackId: string;
  /** When the item was stored (ISO), when the source says. */
  readonly timestamp?: string;
  /** A readable place (`row 12`, `line 5`) for repairs and problems. */
  readonly where: string;
}

/** An item that could not be read: why, and which. */
export interface ItemProblem {
  readonly item: SourceItem;
  readonly message: string;
}

/** What a list of items became. */
export interface MappedItems {
  readonly drafts: Draft[];
  readonly repairs: ImportRepair[];
  readonly problems: ItemProblem[];
  /** Items no message could hold (a list with no message at all), verbatim, for the session's metadata. */
  readonly leftover: JsonValue[];
  /** The items each draft holds, in their stored order (parallel to `drafts`). */
  readonly held: unknown[][];
}

/** How `mapItems` reads. */
export interface MapItemsOptions {
  /**
   * Read so that `messageItems` gives every item back deep-equal (the session adapter): item ids
   * stay in metadata instead of becoming message ids, and content is read by `readExactContent`.
   * @default false (the importer: item ids become message ids, content is read by `readContent`)
   */
  readonly exact?: boolean;
}

/** A message being built: calls may still join it, and items before it are attached on the way. */
interface Builder {
  readonly input: MessageInput;
  readonly meta: Record<string, JsonValue>;
  readonly calls: ToolCallInput[];
  readonly originals: unknown[];
  /** Every item the message holds, in order. */
  readonly held: unknown[];
  /** An assistant message that a following function call joins. */
  acceptsCalls: boolean;
}

/** `record` without `keys`: what is left to keep verbatim. */
function rest(record: Record<string, unknown>, keys: readonly string[]): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(record))
    if (!keys.includes(key) && value !== undefined) defineField(out, key, json(value));
  return out;
}

const ROLES: Readonly<Record<string, MessageInput['role']>> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  // The Responses API's newer spelling of system.
  developer: 'system',
};

function callIdOf(item: Record<string, unknown>): unknown {
  return item['call_id'] ?? item['callId'];
}

/** Reads `items` (in stored order) into drafts; an item that cannot be read is a problem, and the others go on. */
export function mapItems(items: readonly SourceItem[], options: MapItemsOptions = {}): MappedItems {
  const exact = options.exact === true;
  const idOf = (item: Record<string, unknown>): unknown => (exact ? undefined : item['id']);
  const read = (
    value: unknown,
    role: string,
    source: SourceItem,
    field: string,
  ): { content: Content; form?: JsonValue; original?: JsonValue } =>
    exact ? readExactContent(value, role, source.where, field) : readContent(value, source.where, field);
  const builders: Builder[] = [];
  const repairs: ImportRepair[] = [];
  const problems: ItemProblem[] = [];
  const callNames = new Map<string, string>();
  let before: JsonValue[] = [];
  let open: Builder | undefined;

  const attach = (builder: Builder): void => {
    if (before.length === 0) return;
    const list = (builder.meta['before'] as JsonValue[] | undefined) ?? [];
    builder.meta['before'] = [...list, ...before];
    builder.held.push(...before);
    before = [];
  };
  const start = (source: SourceItem, input: MessageInput, meta: Record<string, JsonValue>): Builder => {
    const builder: Builder = { input, meta, calls: [], originals: [source.value], held: [], acceptsCalls: false };
    attach(builder);
    builder.held.push(source.value);
    builders.push(builder);
    return builder;
  };
  const base = (source: SourceItem, id: unknown): Pick<MessageInput, 'id' | 'timestamp'> => ({
    id: messageIdOr(id, source.fallbackId).id,
    ...(source.timestamp === undefined ? {} : { timestamp: source.timestamp }),
  });

  const readMessage = (source: SourceItem, item: Record<string, unknown>, role: string): void => {
    const { content, original, form } = read(item['content'], role, source, 'content');
    const id = idOf(item);
    const usedId = messageIdOr(id, source.fallbackId);
    const meta: Record<string, JsonValue> = {};
    const extra = rest(item, ['role', 'content', ...(usedId.derived ? [] : ['id'])]);
    if (Object.keys(extra).length > 0) meta['item'] = extra;
    if (original !== undefined) meta['content'] = original;
    if (form !== undefined) meta['form'] = form;
    let mapped = ROLES[role];
    let category: MessageInput['category'];
    if (role === 'developer') meta['role'] = role;
    if (mapped === undefined) {
      meta['role'] = role;
      mapped = 'system';
      category = 'context';
      repairs.push({
        kind: 'unknown_role',
        message: `Kept the ${JSON.stringify(role)} message at ${source.where} as a context message`,
        messageId: usedId.id,
      });
    }
    const input: MessageInput = {
      ...base(source, id),
      role: mapped,
      content: content as MessageInput['content'],
      ...(category === undefined ? {} : { category }),
    };
    const builder = start(source, input, meta);
    builder.acceptsCalls = mapped === 'assistant';
    open = builder.acceptsCalls ? builder : undefined;
  };

  const readCall = (source: SourceItem, item: Record<string, unknown>): void => {
    const callId = validToolCallId(callIdOf(item));
    const name = item['name'];
    const args = item['arguments'];
    if (callId === undefined)
      throw new Unreadable(`${source.where}: a function_call needs a call id (call_id or callId)`);
    if (typeof name !== 'string' || name.length === 0 || name.length > 256)
      throw new Unreadable(`${source.where}: function_call ${callId} needs a name`);
    if (args !== undefined && typeof args !== 'string' && !isObject(args))
      throw new Unreadable(`${source.where}: the arguments of function_call ${callId} must be JSON text`);
    callNames.set(callId, name);
    let builder = open;
    if (builder === undefined || builder.calls.some((call) => call.id === callId)) {
      builder = start(source, { ...base(source, idOf(item)), role: 'assistant', content: '' }, {});
      builder.acceptsCalls = true;
      open = builder;
    } else {
      attach(builder);
      builder.originals.push(source.value);
      builder.held.push(source.value);
    }
    builder.calls.push({ id: callId, name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
    const extra = rest(item, ['call_id', 'callId', 'name', ...(typeof args === 'string' ? ['arguments'] : [])]);
    const calls = (builder.meta['calls'] as JsonValue[] | undefined) ?? [];
    builder.meta['calls'] = [...calls, { callId, ...extra }];
  };

  const readResult = (source: SourceItem, item: Record<string, unknown>): void => {
    const callId = validToolCallId(callIdOf(item));
    if (callId === undefined) throw new Unreadable(`${source.where}: a ${String(item['type'])} needs a call id`);
    if (!('output' in item)) throw new Unreadable(`${source.where}: ${String(item['type'])} ${callId} has no output`);
    const { content, original, form } = read(item['output'], 'tool', source, 'output');
    const usedId = messageIdOr(idOf(item), source.fallbackId);
    const named = typeof item['name'] === 'string' && item['name'].length > 0 ? item['name'] : callNames.get(callId);
    const meta: Record<string, JsonValue> = {};
    const extra = rest(item, ['call_id', 'callId', 'output', ...(usedId.derived ? [] : ['id'])]);
    if (Object.keys(extra).length > 0) meta['item'] = extra;
    if (original !== undefined) meta['output'] = original;
    if (form !== undefined) meta['form'] = form;
    const name = named !== undefined && named.length <= 256 ? named : undefined;
    start(
      source,
      {
        ...base(source, idOf(item)),
        role: 'tool',
        toolCallId: callId,
        content: content as MessageInput['content'],
        ...(name === undefined ? {} : { name }),
      },
      meta,
    );
    open = undefined;
  };

  for (const source of items) {
    try {
      const item = source.value;
      if (!isObject(item)) throw new Unreadable(`${source.where}: an item must be a JSON object`);
      const { type, role } = item;
      if ((type === undefined || type === 'message') && typeof role === 'string') readMessage(source, item, role);
      else if (type === 'function_call') readCall(source, item);
      else if (type === 'function_call_output' || type === 'function_call_result') readResult(source, item);
      else if (typeof type === 'string') {
        // Reasoning, hosted and computer tool calls, compaction, …: kept as written beside the next message.
        before.push(json(item));
        if (type !== 'reasoning')
          repairs.push({
            kind: 'kept_in_metadata',
            message: `Kept the ${type} item at ${source.where} verbatim in metadata`,
          });
      } else throw new Unreadable(`${source.where}: an item needs a type or a role`);
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      problems.push({ item: source, message: error.message });
    }
  }

  const last = builders.at(-1);
  let leftover: JsonValue[] = [];
  if (before.length > 0) {
    if (last === undefined) leftover = before;
    else {
      last.meta['after'] = before;
      last.held.push(...before);
    }
  }
  const drafts = builders.map((builder): Draft => {
    const metadata = Object.keys(builder.meta).length > 0 ? { openaiAgents: builder.meta } : {};
    return {
      input: { ...builder.input, ...(builder.calls.length > 0 ? { toolCalls: builder.calls } : {}), metadata },
      original: builder.originals.length === 1 ? builder.originals[0] : builder.originals,
    };
  });
  return { drafts, repairs, problems, leftover, held: builders.map((builder) => builder.held) };
}

/** `value` as a list (an absent or malformed list is empty). */
function listOf(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

/** `value` as an object (an absent or malformed one is empty). */
function objectOf(value: JsonValue | undefined): Record<string, JsonValue> {
  return isObject(value) ? (value as Record<string, JsonValue>) : {};
}

/** A JS SDK role for a message chatstate made (or one mapped without a kept role). */
function itemRole(message: Message, kept: JsonValue | undefined): string {
  if (typeof kept === 'string') return kept;
  return message.role === 'tool' ? 'user' : message.role;
}

/**
 * The items one message holds, in order: the reverse of `mapItems` (and the identity on what
 * `mapItems` read with `exact`). A message chatstate made itself (no `metadata.openaiAgents`: a
 * summary, a message of another source) becomes the items that say the same thing: a message item,
 * one function call per tool call, a `function_call_result` per tool message, and its raw
 * `openaiResponses` parts verbatim.
 */
export function messageItems(message: Message): JsonValue[] {
  const kept = objectOf(message.metadata['openaiAgents']);
  if (Array.isArray(kept['verbatim'])) return kept['verbatim'];
  if (kept['held'] === true && Array.isArray(message.content))
    return message.content.flatMap((part) => (part.type === 'raw' ? [part.value] : []));
  const out: JsonValue[] = [...listOf(kept['before'])];
  const item = objectOf(kept['item']);
  if (message.role === 'tool') {
    out.push({
      ...item,
      ...(item['name'] === undefined ? { name: message.name ?? '' } : {}),
      ...(item['type'] === undefined ? { type: 'function_call_result', status: 'completed' } : {}),
      callId: message.toolCallId ?? '',
      output: writeContent(message.content, 'tool', { form: kept['form'], original: kept['output'] }),
    });
  } else {
    const calls = message.toolCalls ?? [];
    // A run of function calls with no message item before it became an empty assistant message.
    const callsOnly =
      calls.length > 0 &&
      kept['item'] === undefined &&
      kept['content'] === undefined &&
      kept['role'] === undefined &&
      Message.text(message) === '' &&
      (typeof message.content === 'string' || message.content.length === 0);
    if (!callsOnly) {
      const role = itemRole(message, kept['role']);
      const fresh = kept['item'] === undefined && message.role === 'assistant' && kept['content'] === undefined;
      // A JS SDK assistant item's content is always a list of parts (the importer read one part as text).
      const content: Content =
        role === 'assistant' && typeof message.content === 'string'
          ? message.content === ''
            ? []
            : [{ type: 'text', text: message.content }]
          : message.content;
      out.push({
        ...(fresh ? { type: 'message', status: 'completed' } : {}),
        ...item,
        role,
        content: writeContent(content, role, { form: kept['form'], original: kept['content'] }),
      });
    }
    const keptCalls = listOf(kept['calls']);
    calls.forEach((call, index) => {
      const extra = objectOf(keptCalls[index]);
      const { callId: _callId, ...fields } = extra;
      out.push({
        ...(keptCalls[index] === undefined ? { type: 'function_call', status: 'completed' } : {}),
        ...fields,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
      });
    });
  }
  out.push(...listOf(kept['after']));
  return out;
}

/**
 * `message` without what was kept to rebuild its content exactly (`metadata.openaiAgents`'s
 * `content`, `output`, `form` and `verbatim`): for a message a compaction rewrote, whose kept
 * original no longer says what it says. Its other kept fields (ids, status, reasoning) stay.
 */
export function withoutKeptContent(message: Message): Message {
  const kept = message.metadata['openaiAgents'];
  if (!isObject(kept)) return message;
  const { content: _content, output: _output, form: _form, verbatim: _verbatim, ...rest } = kept;
  if (Object.keys(rest).length === Object.keys(kept).length) return message;
  const { openaiAgents: _old, ...metadata } = message.metadata;
  return Message.with(message, {
    metadata: Object.keys(rest).length > 0 ? { ...metadata, openaiAgents: rest as JsonValue } : metadata,
  });
}
