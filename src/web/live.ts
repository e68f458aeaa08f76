/**
 * Live updates of a session over server-sent events (`GET /sessions/{id}/events`): messages
 * appended by any process, a history replaced (a compaction: read it again), a session deleted.
 */
import { api } from './api.js';
import type { Message } from './types.js';

/** What the stream tells. */
export interface LiveHandlers {
  readonly ready: (version: number) => void;
  /** Messages appended, with the tokens of each when the server tells them. */
  readonly appended: (messages: readonly Message[], version: number, tokenCounts?: readonly number[]) => void;
  readonly replaced: (version: number) => void;
  readonly deleted: () => void;
}

/** Follows session `id`; returns the function that stops. */
export function followSession(id: string, handlers: LiveHandlers): () => void {
  const source = new EventSource(api.eventsUrl(id));
  const data = (event: MessageEvent): Record<string, unknown> => {
    try {
      return JSON.parse(String(event.data)) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  source.addEventListener('ready', (event) => handlers.ready(Number(data(event as MessageEvent).version)));
  source.addEventListener('change', (event) => {
    const change = data(event as MessageEvent);
    const version = Number(change.version);
    if (Array.isArray(change.messages))
      handlers.appended(
        change.messages as Message[],
        version,
        Array.isArray(change.tokenCounts) ? (change.tokenCounts as number[]) : undefined,
      );
    else handlers.replaced(version);
  });
  source.addEventListener('deleted', () => {
    source.close();
    handlers.deleted();
  });
  return () => source.close();
}
