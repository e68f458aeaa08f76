/**
 * Recorded provider answers (test/fixtures/protocol/<provider>/<name>.json) and the helpers every
 * model and end-to-end test shares with them.
 */
import { readFileSync } from 'node:fs';
import { ChatstateError } from '../../src/errors.js';
import type { ToolSpec } from '../../src/models/types.js';
import type { ReplayedResponse } from './protocol-server.js';

/** A JSON object as the protocol server received or replays it. */
export type Json = Record<string, unknown>;

function read(provider: string, name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/protocol/${provider}/${name}.json`, import.meta.url), 'utf8'));
}

/** A recorded OpenAI body (those fixtures hold the body alone). */
export function openaiBody(name: string): Json {
  return read('openai', name) as Json;
}

/** A recorded Anthropic or ai-SDK answer (status, headers and body), ready for `server.enqueue`. */
export function recordedAnswer(provider: 'anthropic' | 'ai-sdk', name: string): ReplayedResponse & { body: Json } {
  return read(provider, name) as ReplayedResponse & { body: Json };
}

/** The ChatstateError `promise` rejects with (anything else, or success, fails the test). */
export async function failure(promise: Promise<unknown>): Promise<ChatstateError> {
  try {
    await promise;
  } catch (error) {
    if (ChatstateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** The tool spec the model tests send. */
export const weatherSpec: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city'],
  },
};
