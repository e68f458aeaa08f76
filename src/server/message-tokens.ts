/**
 * Messages' token counts as the API gives them beside the messages (`GET /sessions/{id}/messages`
 * and the event stream's appends): counted by the server's view counter, the one the statistics
 * and the token timeline count with, so a message's count adds up with theirs. A message's own
 * cached count for that counter (`tokens.estimate`) is used when it has one, as the library does.
 * @module
 */
import { z } from '@hono/zod-openapi';
import type { Message } from '../message/message.js';
import type { TokenCounter } from '../tokens/counter.js';
import { estimate } from '../tokens/estimate.js';

/** The counter of the views: statistics, timelines and messages' counts. */
export const VIEW_COUNTER: TokenCounter = estimate;

/** The fields a response with messages gives their counts in. */
export const messageTokensFields = {
  counter: z
    .string()
    .openapi({ description: 'The token counter of tokenCounts (the one the stats and the timeline count with)' }),
  tokenCounts: z.array(z.number().int().nonnegative()).openapi({
    description: 'Each message’s tokens, in the order of messages: tokenCounts[i] counts messages[i]',
  }),
};

/** The counts of `messages`, as `messageTokensFields` gives them. */
export function messageTokens(messages: readonly Message[]): { counter: string; tokenCounts: number[] } {
  return { counter: VIEW_COUNTER.name, tokenCounts: messages.map((message) => VIEW_COUNTER.countMessage(message)) };
}
