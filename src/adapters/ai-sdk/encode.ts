/**
 * A UI message written as chatstate messages (see `./stored-layout.ts`). Text, reasoning and files
 * become content parts; a tool part with an outcome (`output-available`, `output-error`,
 * `output-denied`) becomes a tool call with its tool message right after the step's assistant
 * message, its output written by the `aiSdk` format's tool-result reader, so the stored session
 * reads as a provider-valid conversation. Everything else — data, sources, step boundaries, tool
 * calls still waiting for an outcome, states, ids — stays in the head's metadata.
 * @module
 */
import { readToolOutput } from '../../formats/ai-sdk-output.js';
import type { AiSdkToolResultOutput } from '../../formats/ai-sdk-wire.js';
import { isRecord } from '../../formats/wire-json.js';
import { isEmptyContent } from '../../message/rules.js';
import type { MessageInput } from '../../message/message.js';
import {
  TOOL_CALL_ID_PATTERN,
  readProviderOptions,
  type ContentPart,
  type JsonObject,
  type ToolCallInput,
} from '../../message/schema.js';
import {
  LAYOUT_KEY,
  PLACEHOLDER,
  headId,
  memberId,
  type GroupHead,
  type MovedField,
  type StoredPart,
} from './stored-layout.js';
import type { UiMessageJson, UiPartJson } from './ui-json.js';

/** One assistant step of a group: its content, its resolved calls and their tool messages. */
interface Step {
  readonly content: ContentPart[];
  readonly calls: ToolCallInput[];
  readonly results: Array<{ readonly call: ToolCallInput; readonly content: MessageInput['content'] }>;
}

const OUTCOMES: ReadonlySet<unknown> = new Set(['output-available', 'output-error', 'output-denied']);

/** The tool name of a tool part, or undefined when it is not one. */
export function toolNameOf(part: UiPartJson): string | undefined {
  if (part.type === 'dynamic-tool') return typeof part['toolName'] === 'string' ? part['toolName'] : undefined;
  return part.type.startsWith('tool-') ? part.type.slice('tool-'.length) : undefined;
}

function isCallId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 256 && TOOL_CALL_ID_PATTERN.test(value);
}

/** A part's provider metadata (`field`) as chatstate provider options, when it is a non-empty object of objects. */
function optionsOf(
  part: UiPartJson,
  field: 'providerMetadata' | 'callProviderMetadata' = 'providerMetadata',
): Readonly<Record<string, JsonObject>> | undefined {
  const metadata = part[field];
  if (!isRecord(metadata) || Object.keys(metadata).length === 0) return undefined;
  const read = readProviderOptions(metadata);
  return read.ok ? read.value : undefined;
}

function without(part: UiPartJson, moved: readonly MovedField[]): JsonObject {
  const rest: Record<string, JsonObject[string]> = {};
  for (const [key, value] of Object.entries(part))
    if (!(moved as readonly string[]).includes(key)) Object.defineProperty(rest, key, { value, enumerable: true });
  return rest;
}

/** The AI SDK output of a tool outcome, as `convertToModelMessages` gives it to a model. */
function outcomeOutput(part: UiPartJson): { output: AiSdkToolResultOutput; moved: MovedField[] } {
  switch (part['state']) {
    case 'output-available': {
      const output = part['output'];
      if (output === undefined) return { output: { type: 'text', value: '' }, moved: [] };
      return typeof output === 'string'
        ? { output: { type: 'text', value: output }, moved: ['output'] }
        : { output: { type: 'json', value: output as never }, moved: ['output'] };
    }
    case 'output-error': {
      const text = part['errorText'];
      return typeof text === 'string'
        ? { output: { type: 'error-text', value: text }, moved: ['errorText'] }
        : { output: { type: 'error-text', value: '' }, moved: [] };
    }
    default: {
      const approval = part['approval'];
      const reason = isRecord(approval) && typeof approval['reason'] === 'string' ? approval['reason'] : undefined;
      return {
        output: reason === undefined ? { type: 'execution-denied' } : { type: 'execution-denied', reason },
        moved: [],
      };
    }
  }
}

/** Options of `encodeUiMessage`. */
export interface EncodeContext {
  /** Tool call ids already used in the chat: a repeated one stays in metadata (pairing needs unique ids). */
  readonly callIds: { has(id: string): boolean; add(id: string): void };
}

/** The chatstate messages of one UI message (not yet validated: `Message.create` checks them). */
export function encodeUiMessage(message: UiMessageJson, context: EncodeContext): MessageInput[] {
  const head = headId(message.id);
  const steps: Step[] = [{ content: [], calls: [], results: [] }];
  const stored: StoredPart[] = [];
  const current = (): Step => steps[steps.length - 1] as Step;
  const isEmpty = (step: Step): boolean => step.content.length === 0 && step.calls.length === 0;

  for (const part of message.parts) {
    if (message.role === 'assistant' && part.type === 'step-start' && !isEmpty(current()))
      steps.push({ content: [], calls: [], results: [] });
    const step = steps.length - 1;
    const place = (moved: MovedField[]): void => {
      // The step matters only to a part with moved fields (a trailing empty step is dropped).
      stored.push({
        part: without(part, moved),
        ...(step === 0 || moved.length === 0 ? {} : { step }),
        ...(moved.length > 0 ? { moved } : {}),
      });
    };
    const options = optionsOf(part);
    const optionFields: MovedField[] = options === undefined ? [] : ['providerMetadata'];
    const withOptions = options === undefined ? {} : { providerOptions: options };
    if (part.type === 'text' && typeof part['text'] === 'string') {
      current().content.push({ type: 'text', text: part['text'], ...withOptions });
      place(['text', ...optionFields]);
      continue;
    }
    if (part.type === 'reasoning' && message.role === 'assistant' && typeof part['text'] === 'string') {
      current().content.push({ type: 'reasoning', text: part['text'], ...withOptions });
      place(['text', ...optionFields]);
      continue;
    }
    const { url, mediaType, filename } = part;
    if (
      part.type === 'file' &&
      typeof url === 'string' &&
      url.length > 0 &&
      typeof mediaType === 'string' &&
      mediaType.length > 0 &&
      (filename === undefined || (typeof filename === 'string' && filename.length > 0))
    ) {
      current().content.push({
        type: 'file',
        url,
        mediaType,
        ...(filename === undefined ? {} : { filename }),
        ...withOptions,
      });
      place(['url', ...optionFields]);
      continue;
    }
    const name = toolNameOf(part);
    const callId = part['toolCallId'];
    if (
      message.role === 'assistant' &&
      name !== undefined &&
      name.length > 0 &&
      name.length <= 256 &&
      OUTCOMES.has(part['state']) &&
      part['providerExecuted'] !== true &&
      isCallId(callId) &&
      !context.callIds.has(callId)
    ) {
      context.callIds.add(callId);
      const input = part['input'];
      // Call metadata goes where the AI SDK puts it in a prompt: the tool call's provider options.
      const callOptions = optionsOf(part, 'callProviderMetadata');
      const call: ToolCallInput = {
        id: callId,
        name,
        arguments: input === undefined ? '{}' : JSON.stringify(input),
        ...(callOptions === undefined ? {} : { providerOptions: callOptions }),
      };
      const { output, moved } = outcomeOutput(part);
      current().calls.push(call);
      current().results.push({ call, content: readToolOutput(output, 'output', []) as MessageInput['content'] });
      place([
        ...(input === undefined ? [] : (['input'] as MovedField[])),
        ...(callOptions === undefined ? [] : (['callProviderMetadata'] as MovedField[])),
        ...moved,
      ]);
      continue;
    }
    place([]);
  }
  if (steps.length > 1 && isEmpty(current())) steps.pop();

  const messages: MessageInput[] = [];
  const member = { [LAYOUT_KEY]: { of: head } };
  for (const step of steps) {
    const index = messages.length;
    const content =
      step.calls.length === 0 && isEmptyContent(step.content) ? [...step.content, PLACEHOLDER] : step.content;
    messages.push({
      id: index === 0 ? head : memberId(head, index),
      role: message.role,
      content: content as MessageInput['content'],
      ...(step.calls.length > 0 ? { toolCalls: step.calls } : {}),
      metadata: member,
    });
    for (const result of step.results)
      messages.push({
        id: memberId(head, messages.length),
        role: 'tool',
        toolCallId: result.call.id,
        name: result.call.name,
        content: result.content,
        metadata: member,
      });
  }
  const layout: GroupHead = {
    id: message.id,
    count: messages.length,
    parts: stored,
    ...(message.metadata === undefined ? {} : { metadata: message.metadata }),
    ...(message.extra === undefined ? {} : { extra: message.extra }),
  };
  const first = messages[0] as MessageInput;
  messages[0] = { ...first, metadata: { [LAYOUT_KEY]: layout as unknown as JsonObject } };
  return messages;
}
