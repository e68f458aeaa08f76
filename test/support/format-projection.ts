/**
 * The part of a history that the OpenAI and AI SDK formats carry, for comparing a history with what
 * `from(to(history))` reads back. Left out, because no provider carries them: message ids,
 * timestamps, metadata, token caches, and the `context` category (a context message is a system
 * message on the wire). Tool call arguments are compared as parsed JSON.
 */
import { prepareHistory } from '../../src/formats/prepare.js';
import { Message } from '../../src/message/message.js';
import type { Content, ContentPart } from '../../src/message/schema.js';

/** One message as a provider carries it. */
export interface ProjectedMessage {
  role: Message['role'];
  content: Content;
  text: string;
  toolCalls?: Array<{ id: string; name: string; args: unknown }>;
  toolCallId?: string;
  name?: string;
}

/** Options of the projection for one format. */
export interface ProjectionOptions {
  /** The leading system messages come back as one, their texts joined by a blank line (`instructions`, `system`). */
  joinLeadingSystem: boolean;
  /** An image without `detail` comes back with this one (Responses requires a detail). */
  defaultImageDetail?: 'auto';
}

function normalizePart(part: ContentPart, options: ProjectionOptions): ContentPart {
  if (part.type === 'image' && part.detail === undefined && options.defaultImageDetail !== undefined)
    return { ...part, detail: options.defaultImageDetail };
  return part;
}

function project(message: Message, options: ProjectionOptions): ProjectedMessage {
  const content =
    typeof message.content === 'string' ? message.content : message.content.map((part) => normalizePart(part, options));
  const projected: ProjectedMessage = { role: message.role, content, text: Message.text(message) };
  if (message.toolCalls !== undefined)
    projected.toolCalls = message.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      args: JSON.parse(call.arguments) as unknown,
    }));
  if (message.toolCallId !== undefined) projected.toolCallId = message.toolCallId;
  if (message.name !== undefined) projected.name = message.name;
  return projected;
}

/** What `from(to(history))` must equal: the prepared history (results in call order), projected. */
export function expectedProjection(history: readonly Message[], options: ProjectionOptions): ProjectedMessage[] {
  const { system, body } = prepareHistory(history);
  const leading =
    options.joinLeadingSystem && system.length > 0
      ? [Message.system(system.map((message) => Message.text(message)).join('\n\n'))]
      : system;
  return [...leading, ...body].map((message) => project(message, options));
}

/** Messages read back, projected. */
export function projection(messages: readonly Message[], options: ProjectionOptions): ProjectedMessage[] {
  return messages.map((message) => project(message, options));
}
