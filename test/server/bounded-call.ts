/**
 * A request to a test server whose answer is read for a bounded time: an event stream never ends
 * by itself, so a test reads what came within `readMs` and is told the answer was cut there.
 */
import type { Answer } from './server-harness.js';

/** What `boundedCall` sends. */
export interface BoundedRequest {
  readonly key?: string;
  /** A JSON body; a string is sent as it is. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An answer, and whether its body was still coming when reading stopped. */
export interface BoundedAnswer extends Answer {
  readonly cut: boolean;
}

/** Sends `method path` to the server at `url`; reads the body for at most `readMs`. */
export async function boundedCall(
  url: string,
  method: string,
  path: string,
  request: BoundedRequest,
  readMs: number,
): Promise<BoundedAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.key !== undefined) headers.authorization = `Bearer ${request.key}`;
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), readMs);
  try {
    const response = await fetch(`${url}${path}`, {
      method,
      headers,
      signal: stop.signal,
      ...(body === undefined ? {} : { body }),
    });
    let text = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body ?? []) text += decoder.decode(chunk, { stream: true });
    } catch (error) {
      if (!stop.signal.aborted) throw error;
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json, cut: stop.signal.aborted };
  } finally {
    clearTimeout(timer);
  }
}
