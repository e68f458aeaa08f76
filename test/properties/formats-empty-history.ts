/**
 * Histories that leave a format nothing to send as a conversation: none at all, only leading
 * system and context messages (for the formats that take them apart from the conversation), or
 * messages the format drops whole (another provider's raw parts, another provider's unsigned
 * reasoning). Anthropic, Gemini, OpenAI Chat and the AI SDK reject an empty conversation, so `to`
 * must still produce one they accept, and say so with `empty_conversation`.
 */
import fc from 'fast-check';
import { Message } from '../../src/message/message.js';
import { PROVIDERS, type ProviderName } from '../../src/message/schema.js';

const textArb = fc.string({ minLength: 1, maxLength: 20 }).filter((text) => text.trim().length > 0);

/**
 * Histories `provider` has nothing to send from; `systemApart` when it sends leading system
 * messages apart from the conversation (Anthropic's `system`, Gemini's `systemInstruction`, the AI
 * SDK's `system`), so that they may be there too.
 */
export function nothingToSendArb(provider: ProviderName, systemApart: boolean): fc.Arbitrary<Message[]> {
  const others = PROVIDERS.filter((name) => name !== provider);
  const droppedArb = fc.oneof(
    fc
      .record({ from: fc.constantFrom(...others), text: textArb })
      .map(({ from, text }) => Message.assistant([{ type: 'raw', provider: from, value: { type: 'unknown', text } }])),
    fc
      .record({ from: fc.constantFrom(...others), text: textArb })
      .map(({ from, text }) => Message.user([{ type: 'raw', provider: from, value: { kind: 'mystery', text } }])),
  );
  const systemArb = systemApart
    ? fc.array(
        fc.oneof(
          textArb.map((text) => Message.system(text)),
          textArb.map((text) => Message.context(text)),
        ),
        { maxLength: 2 },
      )
    : fc.constant([]);
  return fc
    .tuple(systemArb, fc.array(droppedArb, { maxLength: 3 }))
    .map(([system, dropped]) => [...system, ...dropped]);
}
