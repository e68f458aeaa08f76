/**
 * Provider wire formats and `validate`. Adding a provider is one file plus one line here.
 * @module
 */
import type { ProviderName } from '../message/schema.js';
import { aiSdk } from './ai-sdk.js';
import { anthropic } from './anthropic.js';
import { gemini } from './gemini.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';
import type { ProviderFormat, WireProblem } from './types.js';

export type { FormatWarning, FromResult, ProviderFormat, WireProblem } from './types.js';
export { prepareHistory, MISSING_RESULT_TEXT, type PreparedHistory } from './prepare.js';

/** Every provider format, by provider name. */
export const formats = Object.freeze({ openaiChat, openaiResponses, anthropic, gemini, aiSdk }) satisfies Record<
  ProviderName,
  ProviderFormat<object>
>;

/** Structural problems of `wire` under `provider`'s rules; empty when the provider would accept it. */
export function validate(provider: ProviderName, wire: unknown): WireProblem[] {
  const format: ProviderFormat<object> | undefined = formats[provider];
  if (format === undefined) {
    return [{ code: 'unknown_provider', message: `Unknown provider ${JSON.stringify(provider)}`, path: '' }];
  }
  return format.validate(wire);
}

export { openaiChat, openaiResponses, anthropic, gemini, aiSdk };
