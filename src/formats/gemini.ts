/**
 * The Gemini `generateContent` format (`@google/genai`): `contents` plus `systemInstruction`.
 *
 * `to` rules, in order:
 * - Leading system messages become `systemInstruction`: one text part per text part; other parts
 *   dropped with `unsupported_part`.
 * - Roles are `user` and `model`. Mid-conversation system and context messages become user text,
 *   wrapped as `<system>…</system>` or `<context>…</context>` (see `instructionText`).
 * - Assistant tool calls become `functionCall` parts `{ id, name, args }` after the message's other
 *   parts (`providerOptions.gemini.thoughtSignature` on the call is sent as the part's signature);
 *   arguments that are not a JSON object are sent as `{ _raw: text }` with `invalid_tool_arguments`.
 * - Tool results become `functionResponse` parts `{ id, name, response }` in the user turn right
 *   after the model turn, one per call in the calls' order; `name` is the called function's name.
 *   `response` is `{ output: text }`, or `{ error: text }` when `metadata.isError` is true or the
 *   result was synthesized. Media in a result go to `functionResponse.parts`.
 * - Images and files become `inlineData` (base64 or `data:` URL) or `fileData` (other URLs and
 *   file ids; an image's media type is guessed from the extension when missing).
 * - Consecutive turns of the same role are merged; blank text is skipped; a message left with no
 *   part is dropped with `empty_message`; a history starting with the model gets a
 *   `FIRST_TURN_PLACEHOLDER` user turn first, with `inserted_user_turn`; a history that leaves no
 *   content at all (only system messages, or everything dropped) is sent as that user turn alone,
 *   with `empty_conversation` (`generateContent` rejects empty `contents`).
 * - Gemini reasoning becomes a `thought: true` text part (its `signature`, or
 *   `providerOptions.gemini.thoughtSignature`, as `thoughtSignature`); other reasoning is dropped
 *   (`dropped_reasoning`). Raw Gemini parts are written verbatim; others are dropped (`foreign_raw_part`).
 *
 * Not carried back by `from`: message ids, names, timestamps, metadata (except `isError`),
 * categories, image `detail`, file names, the boundaries between merged messages, where calls sat
 * among a model turn's parts, and a `response` of another shape than `{ output }` / `{ error }`
 * (read back as its JSON text). Calls and responses without ids get new ids, pairing by name.
 * @module
 */
import { newId } from '../ids.js';
import { Message } from '../message/message.js';
import type { ContentPart, ToolCall } from '../message/schema.js';
import {
  geminiToPart,
  partToGemini,
  rawGeminiPart,
  signatureOptions,
  thoughtSignatureOf,
  type PartPlace,
} from './gemini-content.js';
import { validateGemini } from './gemini-validate.js';
import type {
  GeminiContent,
  GeminiFunctionCallPart,
  GeminiFunctionResponse,
  GeminiFunctionResponseMedia,
  GeminiFunctionResponsePart,
  GeminiPart,
  GeminiTextPart,
  GeminiWire,
} from './gemini-wire.js';
import { prepareHistory } from './prepare.js';
import type { FormatWarning, FromResult, ProviderFormat } from './types.js';
import {
  FIRST_TURN_PLACEHOLDER,
  contentOf,
  emptyConversation,
  instructionText,
  parseToolArguments,
  tryCreate,
  type PartContext,
} from './turn-rules.js';
import { hasText, isRecord, jsonText, skipUnreadable } from './wire-json.js';

function partsOf(message: Message, place: PartPlace, context: PartContext): GeminiPart[] {
  if (typeof message.content === 'string') return hasText(message.content) ? [{ text: message.content }] : [];
  return message.content.flatMap((part) => partToGemini(part, place, context) ?? []);
}

function instructionParts(message: Message, context: PartContext): GeminiPart[] {
  const text = instructionText(message);
  const others = typeof message.content === 'string' ? [] : message.content.filter((part) => part.type !== 'text');
  const parts = others.flatMap((part) => partToGemini(part, 'user', context) ?? []);
  return hasText(text) ? [{ text }, ...parts] : parts;
}

function callPart(call: ToolCall, context: PartContext): GeminiFunctionCallPart {
  const part: GeminiFunctionCallPart = {
    functionCall: { id: call.id, name: call.name, args: parseToolArguments(call, context) },
  };
  const signature = thoughtSignatureOf(call.providerOptions);
  return signature === undefined ? part : { ...part, thoughtSignature: signature };
}

function responsePart(message: Message, name: string, context: PartContext): GeminiFunctionResponsePart {
  const text = Message.text(message);
  const failed = message.metadata['isError'] === true || message.metadata['synthesized'] === true;
  const response: GeminiFunctionResponse = {
    id: message.toolCallId ?? '',
    name,
    response: failed ? { error: text } : { output: text },
  };
  if (typeof message.content !== 'string') {
    const media: GeminiFunctionResponseMedia[] = [];
    for (const part of message.content) {
      if (part.type === 'text') continue;
      const mapped = partToGemini(part, 'user', context);
      if (mapped !== undefined && ('inlineData' in mapped || 'fileData' in mapped)) media.push(mapped);
      else if (mapped !== undefined) {
        const reason = 'Dropped a part a function response cannot hold';
        context.warnings.push({ code: 'unsupported_part', message: reason, messageId: message.id });
      }
    }
    if (media.length > 0) response.parts = media;
  }
  return { functionResponse: response };
}

function to(messages: readonly Message[]): GeminiWire & { readonly warnings: FormatWarning[] } {
  const prepared = prepareHistory(messages);
  const warnings = [...prepared.warnings];
  const system = prepared.system.flatMap(
    (message) => partsOf(message, 'system', { warnings, messageId: message.id }) as GeminiTextPart[],
  );
  const callNames = new Map<string, string>();
  const contents: GeminiContent[] = [];
  const push = (role: GeminiContent['role'], parts: GeminiPart[], message: Message): void => {
    if (parts.length === 0) {
      const text = `Dropped a ${message.role} message with nothing Gemini can carry`;
      warnings.push({ code: 'empty_message', message: text, messageId: message.id });
      return;
    }
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of prepared.body) {
    const context: PartContext = { warnings, messageId: message.id };
    switch (message.role) {
      case 'user':
        push('user', partsOf(message, 'user', context), message);
        break;
      case 'system':
        push('user', instructionParts(message, context), message);
        break;
      case 'assistant': {
        for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
        // Calls go last, after any thoughts and text, as Gemini itself returns them.
        const parts = partsOf(message, 'model', context);
        push('model', [...parts, ...(message.toolCalls ?? []).map((call) => callPart(call, context))], message);
        break;
      }
      case 'tool': {
        // prepareHistory put every result right after its call, so the call's name is known.
        const name = callNames.get(message.toolCallId ?? '') ?? message.name ?? 'unknown';
        push('user', [responsePart(message, name, context)], message);
        break;
      }
      default: {
        const unreachable: never = message.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
  if (contents.length === 0) {
    contents.push({ role: 'user', parts: [{ text: FIRST_TURN_PLACEHOLDER }] });
    warnings.push(emptyConversation('Gemini'));
  } else if (contents[0]?.role === 'model') {
    contents.unshift({ role: 'user', parts: [{ text: FIRST_TURN_PLACEHOLDER }] });
    warnings.push({
      code: 'inserted_user_turn',
      message: 'The history starts with the model; a placeholder user turn was inserted first',
    });
  }
  return { ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}), contents, warnings };
}

/** The text and failure flag of a function response written by `to`; any other shape as JSON text. */
function readResponse(response: unknown): { text: string; isError: boolean } {
  if (isRecord(response)) {
    const keys = Object.keys(response);
    if (keys.length === 1 && typeof response['output'] === 'string')
      return { text: response['output'], isError: false };
    if (keys.length === 1 && typeof response['error'] === 'string') return { text: response['error'], isError: true };
  }
  return { text: jsonText(response ?? {}), isError: false };
}

/** Calls of the model turn being answered, for pairing responses that carry no id. */
type OpenCall = { id: string; name: string; answered: boolean };

function readResponsePart(
  functionResponse: GeminiFunctionResponse,
  open: OpenCall[],
  warnings: FormatWarning[],
  where: string,
): Message | undefined {
  const { id, name } = functionResponse;
  const call = open.find(
    (candidate) => !candidate.answered && (hasText(id) ? candidate.id === id : candidate.name === name),
  );
  if (call !== undefined) call.answered = true;
  const { text, isError } = readResponse(functionResponse.response);
  const media = (Array.isArray(functionResponse.parts) ? functionResponse.parts : []).flatMap(
    (part) => geminiToPart(part) ?? [],
  );
  const textParts: ContentPart[] = hasText(text) ? [{ type: 'text', text }] : [];
  const content: string | ContentPart[] = media.length === 0 ? text : [...textParts, ...media];
  const toolCallId = hasText(id) ? id : (call?.id ?? newId('call'));
  return tryCreate(
    {
      role: 'tool',
      toolCallId,
      content,
      ...(hasText(name) ? { name } : {}),
      ...(isError ? { metadata: { isError: true } } : {}),
    },
    warnings,
    where,
  );
}

function from(wire: GeminiWire): FromResult {
  const warnings: FormatWarning[] = [];
  const out: Message[] = [];
  const system =
    isRecord(wire.systemInstruction) && Array.isArray(wire.systemInstruction.parts) ? wire.systemInstruction.parts : [];
  system.forEach((part, index) => {
    const where = `systemInstruction.parts[${index}]`;
    skipUnreadable(warnings, 'invalid_part', where, () => {
      const read = geminiToPart(part);
      if (read === undefined) return;
      if (read.type !== 'text') {
        warnings.push({ code: 'unsupported_part', message: `Skipped ${where}: only text is read` });
        return;
      }
      const message = tryCreate({ role: 'system', content: contentOf([read]) }, warnings, where);
      if (message !== undefined) out.push(message);
    });
  });
  let open: OpenCall[] = [];
  const contents: readonly unknown[] = Array.isArray(wire.contents) ? wire.contents : [];
  contents.forEach((entry, index) => {
    const where = `contents[${index}]`;
    if (!isRecord(entry) || (entry['role'] !== 'user' && entry['role'] !== 'model') || !Array.isArray(entry['parts'])) {
      warnings.push({ code: 'invalid_message', message: `Skipped ${where}: not a user or model content with parts` });
      return;
    }
    const role = entry['role'];
    const parts: readonly unknown[] = entry['parts'];
    let collected: ContentPart[] = [];
    const toolCalls: ToolCall[] = [];
    const before = out.length;
    const flush = (): void => {
      const message =
        collected.length > 0 ? tryCreate({ role: 'user', content: contentOf(collected) }, warnings, where) : undefined;
      if (message !== undefined) out.push(message);
      collected = [];
    };
    parts.forEach((part, partIndex) => {
      if (!isRecord(part)) {
        warnings.push({ code: 'invalid_part', message: `Skipped ${where}.parts[${partIndex}]: not a part` });
        return;
      }
      const { functionCall, functionResponse } = part;
      // A part holding what no JSON can (a cycle, nesting past MAX_JSON_DEPTH) is skipped, not fatal.
      skipUnreadable(warnings, 'invalid_part', `${where}.parts[${partIndex}]`, () => {
        if (role === 'model' && isRecord(functionCall) && hasText(functionCall['name'])) {
          const id = hasText(functionCall['id']) ? functionCall['id'] : newId('call');
          const args = isRecord(functionCall['args']) ? functionCall['args'] : {};
          toolCalls.push({ id, name: functionCall['name'], arguments: jsonText(args), ...signatureOptions(part) });
        } else if (role === 'user' && isRecord(functionResponse)) {
          flush();
          const response = functionResponse as unknown as GeminiFunctionResponse;
          const message = readResponsePart(response, open, warnings, `${where}.parts[${partIndex}]`);
          if (message !== undefined) out.push(message);
        } else {
          // A call in a user turn or a response in a model turn is kept as it was.
          const misplaced = functionCall !== undefined || functionResponse !== undefined;
          const read = misplaced ? rawGeminiPart(part) : geminiToPart(part as unknown as GeminiPart);
          if (read !== undefined) collected.push(read);
        }
      });
    });
    if (role === 'user') flush();
    // Id-less responses pair only with the model turn right before.
    open = toolCalls.map((call) => ({ id: call.id, name: call.name, answered: false }));
    if (role === 'user' || (collected.length === 0 && toolCalls.length === 0)) {
      if (out.length === before) warnings.push({ code: 'empty_message', message: `Skipped ${where}: no content` });
      return;
    }
    const message = tryCreate(
      { role: 'assistant', content: contentOf(collected), ...(toolCalls.length > 0 ? { toolCalls } : {}) },
      warnings,
      where,
    );
    if (message !== undefined) out.push(message);
  });
  return { messages: out, warnings };
}

/** The Gemini `generateContent` format (`contents` + `systemInstruction`); the rules are in this module's header. */
export const gemini: ProviderFormat<GeminiWire> = Object.freeze({
  provider: 'gemini',
  to,
  from,
  validate: validateGemini,
});
