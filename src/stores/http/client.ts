/**
 * The remote store's transport: one JSON request to a chatstate server with `fetch`, the API key
 * as `Authorization: Bearer`, a deadline per request, and every failure as a typed error — the
 * server's `{ code, message, details }` answers as the same `ChatstateError` classes the store
 * under the server threw, and a server that cannot be reached as `UNAVAILABLE` (retryable).
 * @module
 */
import {
  ChatstateError,
  CollaboratorError,
  ConflictError,
  DataError,
  ERROR_CODES,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  UnauthorizedError,
  UnavailableError,
  UnsupportedError,
  errorMessage,
  type ErrorCode,
} from '../../errors.js';

/** One request of the remote store. */
export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path under the server's base URL, its segments already encoded. */
  readonly path: string;
  /** Query parameters; `undefined` ones are left out. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** A JSON body. */
  readonly body?: unknown;
  /** The version the write expects, sent as `If-Match`. */
  readonly expectedVersion?: number;
  /** The request changes data: when the connection fails after it was sent, its outcome is unknown. */
  readonly write?: boolean;
}

/** A successful answer: its status and body bytes. */
export interface HttpAnswer {
  readonly status: number;
  readonly bytes: Uint8Array;
}

/** What the transport needs to know of its store. */
export interface HttpClientOptions {
  /** The store's name, which every error message starts with. */
  readonly store: string;
  /** The server's base URL, without a trailing slash (`http://127.0.0.1:3000/api`). */
  readonly base: string;
  readonly apiKey?: string;
  /** Deadline of one request, in milliseconds. */
  readonly timeoutMs: number;
}

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** Error codes of the caller's input: the request is refused as it is. */
const INPUT_CODES: ReadonlySet<ErrorCode> = new Set([
  'INVALID_MESSAGE',
  'INVALID_SESSION',
  'INVALID_ID',
  'INVALID_ARGUMENT',
  'TOO_LARGE',
  'STATE_REJECTED',
]);

/** Node's codes of a connection that was never made: nothing of the request reached the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The first `code` along an error's `cause` chain (undici wraps the socket's error in `fetch failed`). */
function causeCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 5; depth++) {
    const code = (current as { code?: unknown } | null)?.code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown } | null)?.cause;
  }
  return undefined;
}

/** Sends the remote store's requests to one server. */
export class HttpClient {
  constructor(private readonly options: HttpClientOptions) {}

  /** Sends `request`; resolves with a 2xx answer, rejects with a typed error for anything else. */
  async send(request: HttpRequest): Promise<HttpAnswer> {
    const { store, base, apiKey, timeoutMs } = this.options;
    const url = new URL(`${base}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
    if (request.expectedVersion !== undefined) headers['if-match'] = `"${request.expectedVersion}"`;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let bytes: Uint8Array;
    try {
      // No redirects: a key must not follow one to another host.
      response = await fetch(url, { method: request.method, headers, body, signal, redirect: 'manual' });
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw this.unreachable(error, request, signal.aborted);
    }
    if (response.status >= 200 && response.status < 300) return { status: response.status, bytes };
    throw errorOfAnswer(store, response.status, bytes, request);
  }

  /** Sends `request` and parses its JSON answer. */
  async json(request: HttpRequest): Promise<unknown> {
    const { bytes } = await this.send(request);
    try {
      return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    } catch (error) {
      throw new DataError(
        'CORRUPT',
        `${this.options.store}: ${request.method} ${request.path} answered JSON that does not parse`,
        {
          cause: error,
        },
      );
    }
  }

  /** `UNAVAILABLE` for a request that got no answer: refused, reset, or past its deadline. */
  private unreachable(error: unknown, request: HttpRequest, timedOut: boolean): UnavailableError {
    const { store, timeoutMs } = this.options;
    const code = causeCode(error);
    const sent = code === undefined || !NOT_SENT.has(code);
    const reason = timedOut ? 'TIMEOUT' : 'CONNECTION';
    const why = timedOut
      ? `no answer in ${timeoutMs} ms`
      : `${errorMessage(error)}${code === undefined ? '' : ` (${code})`}`;
    return new UnavailableError(
      `${store}: the server could not be reached for ${request.method} ${request.path}: ${why}`,
      {
        store,
        reason,
        ...(code === undefined ? {} : { cause: code }),
        ...(request.write === true ? { outcome: sent ? 'unknown' : 'not-applied' } : {}),
      },
      { cause: error },
    );
  }
}

/** The server's error body, when the answer is one. */
function errorBody(
  bytes: Uint8Array,
): { code: ErrorCode; message: string; details: Record<string, unknown> } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message, details } = value as { code?: unknown; message?: unknown; details?: unknown };
  if (typeof code !== 'string' || !CODES.has(code) || typeof message !== 'string') return undefined;
  const plain = typeof details === 'object' && details !== null && !Array.isArray(details) ? details : {};
  return { code: code as ErrorCode, message, details: plain as Record<string, unknown> };
}

/**
 * The typed error of a non-2xx answer: the server's code with its class, the store's name first
 * in its message. A server that is closing (`CLOSED`) or an answer that is
 * not chatstate's from a proxy in front of it (502, 503, 504) is `UNAVAILABLE`: another try, or
 * another instance, can succeed — unlike `CLOSED` of this store, which its owner closed.
 */
export function errorOfAnswer(store: string, status: number, bytes: Uint8Array, request: HttpRequest): ChatstateError {
  const body = errorBody(bytes);
  const where = `${request.method} ${request.path}`;
  if (body === undefined) {
    if (status === 502 || status === 503 || status === 504)
      return new UnavailableError(`${store}: ${where} answered HTTP ${status}`, {
        store,
        reason: `HTTP_${status}`,
        ...(request.write === true ? { outcome: 'unknown' } : {}),
      });
    if (status === 401) return new UnauthorizedError(`${store}: ${where} answered HTTP 401`);
    if (status === 403) return new ForbiddenError(`${store}: ${where} answered HTTP 403`);
    return new ChatstateError(
      'INTERNAL',
      `${store}: ${where} answered HTTP ${status} without a chatstate error: is this the URL of a chatstate server?`,
      { details: { status } },
    );
  }
  const message = `${store}: ${body.message}`;
  const details = body.details;
  const options = { details };
  switch (body.code) {
    case 'NOT_FOUND':
      return new NotFoundError(message, options);
    case 'CONFLICT':
      return new ConflictError(message, options);
    case 'UNAUTHORIZED':
      return new UnauthorizedError(message, options);
    case 'FORBIDDEN':
      return new ForbiddenError(message, options);
    case 'CLOSED':
      // This store's own CLOSED is thrown before any request. From the server it means the server
      // (or its store) is shutting down: another try, on this instance later or on another, can work.
      return new UnavailableError(message, { ...details, store, reason: 'SERVER_CLOSING' });
    case 'UNAVAILABLE':
      return new UnavailableError(message, {
        ...details,
        store,
        reason: typeof details.reason === 'string' ? details.reason : 'SERVER',
        ...(request.write === true ? { outcome: details.outcome === 'not-applied' ? 'not-applied' : 'unknown' } : {}),
      });
    case 'UNSUPPORTED':
      return new UnsupportedError(message, {
        ...details,
        store,
        capability: typeof details.capability === 'string' ? details.capability : 'unknown',
      });
    case 'CORRUPT':
    case 'WRONG_KEY':
      return new DataError(body.code, message, options);
    default:
      if (INPUT_CODES.has(body.code)) return new InvalidInputError(body.code, message, options);
      return new CollaboratorError(body.code, message, options);
  }
}
