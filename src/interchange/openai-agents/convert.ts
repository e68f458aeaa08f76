/**
 * OpenAI Agents items to chatstate messages and back, exactly: what the `chatstate/openai-agents`
 * session stores. Both directions are `./items.ts`'s (the importer's reading, with `exact`), and each
 * message is checked on the way in: when `messageItems` would not give its items back deep-equal,
 * the message keeps them verbatim (`metadata.openaiAgents.verbatim`), so nothing is ever lost. Items
 * no message can hold (a list of reasoning or hosted tool items only) become an assistant message of
 * raw `openaiResponses` parts (`metadata.openaiAgents.held`).
 * @module
 */
import { ChatstateError, InvalidInputError } from '../../errors.js';
import { newId } from '../../ids.js';
import { canonicalJson } from '../../internal/canonical-json.js';
import { Message } from '../../message/message.js';
import type { JsonValue } from '../../message/schema.js';
import { mapItems, messageItems, type SourceItem } from './items.js';

/** An assistant message holding `items` verbatim as raw `openaiResponses` parts. */
function heldMessage(items: readonly JsonValue[]): Message {
  return Message.create({
    id: newId('msg'),
    role: 'assistant',
    content: items.map((value) => ({ type: 'raw' as const, provider: 'openaiResponses' as const, value })),
    metadata: { openaiAgents: { held: true } },
  });
}

/**
 * The messages that hold `items` (JSON values, in order), each one giving its items back
 * deep-equal through `messagesToItems`. An item that is not an item (no type or role, a function
 * call without a call id or name, …) is `INVALID_ARGUMENT`; one chatstate cannot store (too large,
 * not JSON) is `TOO_LARGE` / `INVALID_MESSAGE`. Nothing is returned then.
 */
export function itemsToMessages(items: readonly unknown[]): Message[] {
  const sources: SourceItem[] = items.map((value, index) => ({
    value,
    fallbackId: newId('msg'),
    where: `item ${index}`,
  }));
  const mapped = mapItems(sources, { exact: true });
  const problem = mapped.problems[0];
  if (problem !== undefined)
    throw new InvalidInputError('INVALID_ARGUMENT', `openai-agents: ${problem.message}`, {
      details: { item: sources.indexOf(problem.item) },
    });
  if (mapped.drafts.length === 0) return mapped.leftover.length === 0 ? [] : [heldMessage(mapped.leftover)];
  return mapped.drafts.map((draft, index) => {
    const held = (mapped.held[index] ?? []) as JsonValue[];
    let message: Message;
    try {
      message = Message.create(draft.input);
    } catch (error) {
      // An item chatstate cannot read as a message (an empty one): kept whole, raw.
      const plain = draft.input.role !== 'tool' && draft.input.toolCalls === undefined;
      if (plain && ChatstateError.hasCode(error, 'INVALID_MESSAGE')) return heldMessage(held);
      throw error;
    }
    if (canonicalJson(messageItems(message)) === canonicalJson(held)) return message;
    return Message.with(message, { metadata: { ...message.metadata, openaiAgents: { verbatim: held } } });
  });
}

/** The items `messages` hold, in order (see `messageItems`). */
export function messagesToItems(messages: readonly Message[]): JsonValue[] {
  return messages.flatMap((message) => messageItems(message));
}
