/**
 * The JSON payload inside a state blob: `{ v, provider, processedLength, messages }`, messages as
 * chatstate Message JSON. Parsing checks the version, then the provider, then validates every
 * message exactly as `Message.create` does.
 * @module
 */
import { z } from 'zod';
import { describeIssues, errorMessage } from '../errors.js';
import { Message } from '../message/message.js';
import type { ProviderName } from '../message/schema.js';
import { STATE_VERSION, type StateRejection } from './types.js';

/** The payload as written. */
export interface StatePayload {
  readonly v: number;
  readonly provider: ProviderName;
  readonly processedLength: number;
  readonly messages: readonly Message[];
}

/** A parsed payload, or why it was rejected. */
export type ParsedPayload =
  | { readonly ok: true; readonly messages: readonly Message[]; readonly processedLength: number }
  | { readonly ok: false; readonly rejection: StateRejection };

const bodySchema = z.strictObject({
  v: z.number(),
  provider: z.string(),
  processedLength: z.number().int().nonnegative(),
  // Messages are validated one by one by Message.create, which names the bad index.
  messages: z.array(z.unknown()),
});

/** The payload's JSON text. */
export function serializePayload(payload: StatePayload): string {
  return JSON.stringify({
    v: payload.v,
    provider: payload.provider,
    processedLength: payload.processedLength,
    messages: payload.messages,
  });
}

function corrupt(message: string): ParsedPayload {
  return { ok: false, rejection: { reason: 'corrupt', message: `State is corrupt: ${message}` } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses and validates a payload's JSON text for `provider`. Never throws. `authentic` says the
 * payload's MAC was verified; only then are the messages' cached token counts kept.
 */
export function parsePayload(json: string, provider: ProviderName, authentic: boolean): ParsedPayload {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return corrupt('the payload is not JSON');
  }
  if (!isRecord(data)) return corrupt('the payload is not a JSON object');
  // Version and provider come first so that a well-formed blob of another version or provider gets
  // that reason, not a validation error about fields it may legitimately lack.
  if (typeof data.v === 'number' && data.v !== STATE_VERSION) {
    return {
      ok: false,
      rejection: { reason: 'version', message: `State has payload version ${data.v}; expected ${STATE_VERSION}` },
    };
  }
  if (typeof data.provider === 'string' && data.provider !== provider) {
    return {
      ok: false,
      rejection: {
        reason: 'provider',
        message: `State was written for provider ${JSON.stringify(data.provider.slice(0, 64))}, not ${JSON.stringify(provider)}`,
      },
    };
  }
  const body = bodySchema.safeParse(data);
  if (!body.success) return corrupt(describeIssues(body.error.issues));
  const messages: Message[] = [];
  for (const [index, value] of body.data.messages.entries()) {
    if (!isRecord(value)) return corrupt(`message ${index} is not an object`);
    // Counters trust cached token counts: from an unsigned blob, which anyone can write, a forged
    // `tokens: { estimate: 0 }` would make a huge history look free to compaction, so they are dropped.
    const { tokens: _untrusted, ...fields } = value;
    try {
      messages.push(Message.create((authentic ? value : fields) as Parameters<typeof Message.create>[0]));
    } catch (error) {
      return corrupt(`message ${index}: ${errorMessage(error)}`);
    }
  }
  if (body.data.processedLength > messages.length) {
    return corrupt(`processedLength ${body.data.processedLength} exceeds the ${messages.length} stored messages`);
  }
  return { ok: true, messages: Object.freeze(messages), processedLength: body.data.processedLength };
}
