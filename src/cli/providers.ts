/**
 * Provider names on the command line, and the wire request body of a history for each provider.
 * @module
 */
import { InvalidArgumentError } from 'commander';
import { formats } from '../formats/index.js';
import type { FormatWarning } from '../formats/types.js';
import type { Message } from '../message/message.js';
import { PROVIDERS, type ProviderName } from '../message/schema.js';

/** The field of each provider's request body that holds the history (a plain array is wrapped in it). */
export const HISTORY_FIELD: Readonly<Record<ProviderName, string>> = Object.freeze({
  openaiChat: 'messages',
  openaiResponses: 'input',
  anthropic: 'messages',
  gemini: 'contents',
  aiSdk: 'messages',
});

/** A provider name argument (`INVALID_ARGUMENT` listing the providers otherwise). */
export function providerArgument(value: string): ProviderName {
  if (!(PROVIDERS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(
      `unknown provider ${JSON.stringify(value)}; expected one of ${PROVIDERS.join(', ')}`,
    );
  }
  return value as ProviderName;
}

/** The request body of `messages` for `provider` (without chatstate's warnings), and the warnings apart. */
export function wireRequest(
  provider: ProviderName,
  messages: readonly Message[],
): { body: object; warnings: FormatWarning[] } {
  const { warnings, ...body } = formats[provider].to(messages);
  return { body, warnings };
}

/** A wire value as the provider's request body: a plain array is the history field. */
export function asRequestBody(provider: ProviderName, wire: unknown): unknown {
  return Array.isArray(wire) ? { [HISTORY_FIELD[provider]]: wire } : wire;
}
