/**
 * `providerOptions` between chatstate parts and AI SDK parts, both directions. The AI SDK keys
 * options by its provider packages (`openai`, `anthropic`, `google`); chatstate's own bookkeeping
 * keys (`openaiChat`, `openaiResponses`, `gemini`, `aiSdk`) stay out of the prompt.
 * @module
 */
import type { JsonObject, ProviderName, ReasoningPart } from '../message/schema.js';
import type { AiSdkProviderOptions } from './ai-sdk-wire.js';
import { defineField } from '../internal/define-field.js';
import { isRecord, toJsonObject, toWireObject } from './wire-json.js';

/** Where each provider's reasoning signature lives in AI SDK `providerOptions`. */
const SIGNATURE_SLOTS: Partial<Record<ProviderName, readonly [string, string]>> = {
  anthropic: ['anthropic', 'signature'],
  gemini: ['google', 'thoughtSignature'],
};

// Keys chatstate formats use for their own bookkeeping: meaningless to AI SDK providers.
const INTERNAL_KEYS: ReadonlySet<string> = new Set(['openaiChat', 'openaiResponses', 'gemini', 'aiSdk']);

/** Our `providerOptions` as AI SDK ones (copied, internal keys left out), or undefined when none remain. */
export function toAiSdkOptions(
  options: Readonly<Record<string, JsonObject>> | undefined,
): AiSdkProviderOptions | undefined {
  if (options === undefined) return undefined;
  const out: AiSdkProviderOptions = {};
  // Keys are the caller's data: a "__proto__" key stays a key (see `defineField`).
  for (const [key, value] of Object.entries(options))
    if (!INTERNAL_KEYS.has(key)) defineField(out, key, toWireObject(value));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** AI SDK `providerOptions` read back (they are JSON objects by key); undefined when absent. */
export function fromAiSdkOptions(options: unknown, path: string): Record<string, JsonObject> | undefined {
  if (!isRecord(options)) return undefined;
  const out: Record<string, JsonObject> = {};
  for (const [key, value] of Object.entries(options))
    if (isRecord(value)) defineField(out, key, toJsonObject(value, `${path}.${key}`));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `{ providerOptions }` when there are any, for spreading into a part. */
export function withOptions<T extends AiSdkProviderOptions | Record<string, JsonObject>>(
  options: T | undefined,
): { providerOptions?: T } {
  return options === undefined || Object.keys(options).length === 0 ? {} : { providerOptions: options };
}

/**
 * The AI SDK options of a reasoning part: its signature goes where that provider's AI SDK package
 * reads it. Returns false as `kept` when the signature has no place (it is then not sent).
 */
export function reasoningOptions(part: ReasoningPart): { options: AiSdkProviderOptions | undefined; kept: boolean } {
  const options = toAiSdkOptions(part.providerOptions) ?? {};
  if (part.signature === undefined)
    return { options: Object.keys(options).length > 0 ? options : undefined, kept: true };
  const slot = part.provider === undefined ? undefined : SIGNATURE_SLOTS[part.provider];
  if (slot === undefined) return { options: Object.keys(options).length > 0 ? options : undefined, kept: false };
  const [key, field] = slot;
  options[key] = { ...options[key], [field]: part.signature };
  return { options, kept: true };
}

/** A reasoning part's signature and provider read back from AI SDK options (the slot is removed from them). */
export function readSignature(options: Record<string, JsonObject> | undefined): {
  signature?: string;
  provider?: ProviderName;
  providerOptions?: Record<string, JsonObject>;
} {
  if (options === undefined) return {};
  for (const [provider, slot] of Object.entries(SIGNATURE_SLOTS) as Array<[ProviderName, readonly [string, string]]>) {
    const [key, field] = slot;
    const signature = options[key]?.[field];
    if (typeof signature !== 'string') continue;
    const { [field]: _signature, ...rest } = options[key] ?? {};
    const remaining: Record<string, JsonObject> = { ...options };
    if (Object.keys(rest).length > 0) remaining[key] = rest;
    else delete remaining[key];
    return { signature, provider, ...withOptions(remaining) };
  }
  return { providerOptions: options };
}
