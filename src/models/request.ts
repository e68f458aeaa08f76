/**
 * Request checks shared by the adapters: the prompt (per-call system + conversation) as messages,
 * and the numeric settings. Bad input is a typed `INVALID_ARGUMENT` before any HTTP call, not a
 * provider 400 after one.
 * @module
 */
import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { Message } from '../message/message.js';
import type { ProviderName } from '../message/schema.js';
import type { ChatRequest } from './types.js';

/** The `INVALID_ARGUMENT` error for a bad adapter option or request field, named after the provider. */
export function invalidRequest(provider: ProviderName, why: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `${provider}: ${why}`);
}

const invalid = invalidRequest;

// Every call of a conversation sends the same prompt: it is made into a message once (a prompt's
// message is never stored, so sharing its id between calls is harmless).
let lastSystem: { readonly text: string; readonly message: Message } | undefined;

function systemMessage(text: string): Message {
  if (lastSystem?.text !== text) lastSystem = { text, message: Message.system(text) };
  return lastSystem.message;
}

/**
 * The messages a call sends: `request.system` (a string becomes one system message; blank is
 * none) followed by `request.messages`. Plain message objects are validated (`INVALID_MESSAGE`).
 */
export function promptMessages(request: ChatRequest, provider: ProviderName): Message[] {
  if (typeof request !== 'object' || request === null) throw invalid(provider, 'the request must be an object');
  const { system, messages } = request;
  if (!Array.isArray(messages)) throw invalid(provider, 'request.messages must be an array of messages');
  let prompt: Message[];
  if (system === undefined) prompt = [];
  else if (typeof system === 'string') prompt = system.trim().length > 0 ? [systemMessage(system)] : [];
  else if (Array.isArray(system)) prompt = system.map((message) => Message.from(message));
  else throw invalid(provider, 'request.system must be a string or an array of messages');
  for (const message of messages) prompt.push(Message.from(message));
  if (prompt.length === 0) throw invalid(provider, 'the request has no messages to send');
  return prompt;
}

/** Checked `maxOutputTokens` and `temperature`, the request's value winning over the adapter's default. */
export interface Settings {
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
}

/** `request`'s settings over `defaults`, checked: a positive integer token limit, a finite non-negative temperature. */
export function checkSettings(request: Settings, defaults: Settings, provider: ProviderName): Settings {
  const maxOutputTokens = request.maxOutputTokens ?? defaults.maxOutputTokens;
  const temperature = request.temperature ?? defaults.temperature;
  if (maxOutputTokens !== undefined && !(Number.isSafeInteger(maxOutputTokens) && maxOutputTokens > 0)) {
    throw invalid(provider, `maxOutputTokens must be a positive integer, got ${String(maxOutputTokens)}`);
  }
  // Providers differ on the upper bound (OpenAI 2, Anthropic 1): left to the provider's own check.
  if (
    temperature !== undefined &&
    !(typeof temperature === 'number' && Number.isFinite(temperature) && temperature >= 0)
  ) {
    throw invalid(provider, `temperature must be a finite number of at least 0, got ${String(temperature)}`);
  }
  return {
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(temperature === undefined ? {} : { temperature }),
  };
}

/**
 * Checks an adapter's `extraBody` once, at construction: a JSON object that sets none of the
 * fields the adapter owns (`owned`), which would silently replace the conversation or the tools.
 */
export function checkExtraBody(
  extraBody: unknown,
  owned: readonly string[],
  provider: ProviderName,
): Readonly<Record<string, unknown>> {
  if (extraBody === undefined) return {};
  if (typeof extraBody !== 'object' || extraBody === null || Array.isArray(extraBody))
    throw invalid(provider, 'extraBody must be an object of request fields');
  const clash = owned.find((key) => Object.hasOwn(extraBody, key));
  if (clash !== undefined)
    throw invalid(provider, `extraBody may not set "${clash}": the adapter sets it from the request`);
  return extraBody as Readonly<Record<string, unknown>>;
}

/** The longest `prompt_cache_key` OpenAI accepts (a longer one is a 400 `string_above_max_length`). */
export const MAX_PROMPT_CACHE_KEY_LENGTH = 64;

/**
 * `request.cacheKey` as a provider may take it: undefined when absent, the key itself when it fits
 * in `MAX_PROMPT_CACHE_KEY_LENGTH`, else its SHA-256 in hex (64 characters: as stable per
 * conversation as the key, so the cache routing is the same). `INVALID_ARGUMENT` for a non-string
 * or empty key.
 */
export function promptCacheKey(request: ChatRequest, provider: ProviderName): string | undefined {
  const key: unknown = request.cacheKey;
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0)
    throw invalid(provider, 'request.cacheKey must be a non-empty string');
  return key.length <= MAX_PROMPT_CACHE_KEY_LENGTH ? key : createHash('sha256').update(key, 'utf8').digest('hex');
}
