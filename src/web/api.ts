/**
 * The browser's only way to the data: this server's API, with the HttpOnly session cookie the
 * login set (the page never holds a key after logging in). Every failure is an `ApiError` with
 * the server's error code.
 */
import type { MessageRange, SessionPage, SessionRow, SessionStats, SessionThread, Timeline, Who } from './types.js';

/** An answer of the API that was not a success. */
export class ApiError extends Error {
  /** The HTTP status (0 when the server could not be reached). */
  readonly status: number;
  /** The server's error code (`NOT_FOUND`, `UNAUTHORIZED`, …), or `NETWORK`. */
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new ApiError(0, 'NETWORK', 'The server could not be reached');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = parsed as { code?: unknown; message?: unknown } | undefined;
    throw new ApiError(
      response.status,
      typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
      typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`,
    );
  }
  return parsed as T;
}

const enc = encodeURIComponent;

/** Filters of the session list. */
export interface ListFilters {
  readonly q?: string;
  readonly userId?: string;
  readonly agentId?: string;
  /** Only sessions active after this time (ISO-8601). */
  readonly updatedAfter?: string;
  /** `all`: chatstate's internal sessions too (the API lists conversations only by default). */
  readonly kinds?: 'all';
  readonly cursor?: string;
  readonly limit?: number;
}

function query(params: Readonly<Record<string, string | number | undefined>>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `${enc(name)}=${enc(String(value))}`);
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** The API, as the page uses it. */
export const api = {
  who: (): Promise<Who> => call('GET', '/auth/session'),
  login: (key: string): Promise<Who> => call('POST', '/auth/session', { key }),
  logout: (): Promise<void> => call('DELETE', '/auth/session'),
  list: (filters: ListFilters, signal?: AbortSignal): Promise<SessionPage> =>
    call('GET', `/sessions${query({ limit: 50, ...filters })}`, undefined, signal),
  summary: (id: string): Promise<SessionRow> => call('GET', `/sessions/${enc(id)}/summary`),
  stats: (id: string): Promise<SessionStats> => call('GET', `/sessions/${enc(id)}/stats`),
  timeline: (id: string): Promise<Timeline> => call('GET', `/sessions/${enc(id)}/timeline`),
  /** Messages with `afterSeq < seq < beforeSeq`, the last `limit` of them, with their tokens. */
  messages: (
    id: string,
    range: { readonly afterSeq?: number; readonly beforeSeq?: number; readonly limit: number },
  ): Promise<MessageRange> => call('GET', `/sessions/${enc(id)}/messages${query(range)}`),
  /** The LangGraph thread the session is the conversation of, at its newest checkpoint or at `checkpoint` (no `thread` for other sessions). */
  thread: (id: string, checkpoint?: string): Promise<SessionThread> =>
    call('GET', `/sessions/${enc(id)}/thread${query({ checkpoint })}`),
  /** The URL of the session's event stream. */
  eventsUrl: (id: string): string => `/sessions/${enc(id)}/events`,
};
