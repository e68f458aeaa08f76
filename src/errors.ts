/**
 * Typed errors. Every error chatstate throws is a `ChatstateError` with a string `code`;
 * subclasses say who is at fault, so a caller can decide whether to retry, fix its input or alert.
 * @module
 */

/** Every error code chatstate uses. */
export const ERROR_CODES = [
  'INVALID_MESSAGE',
  'INVALID_SESSION',
  'INVALID_ID',
  'INVALID_ARGUMENT',
  'MISSING_COLLABORATOR',
  'MISSING_DEPENDENCY',
  'TOO_LARGE',
  'NOT_FOUND',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'CONFLICT',
  'CLOSED',
  'UNSUPPORTED',
  'CORRUPT',
  'WRONG_KEY',
  'STATE_REJECTED',
  'PROVIDER_RULE',
  'SUMMARY_FAILED',
  'UNAVAILABLE',
  'STORAGE_FAILED',
  'ARCHIVE_FAILED',
  'MODEL_FAILED',
  'RATE_LIMITED',
  'CONTEXT_OVERFLOW',
  'ABORTED',
  'TOOL_LOOP_LIMIT',
  'TOOL_FAILED',
  'INTERNAL',
] as const;

/** An error code chatstate uses. */
export type ErrorCode = (typeof ERROR_CODES)[number];

// A Symbol.for marker makes errors recognizable across two installed copies of chatstate,
// where `instanceof` fails.
const marker = Symbol.for('chatstate.error');

/** Options accepted by every chatstate error. */
export interface ChatstateErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
  /** Structured details (never secrets) for logs. */
  details?: Readonly<Record<string, unknown>>;
}

/** Base class of every error chatstate throws. */
export class ChatstateError extends Error {
  /** Machine-readable reason. */
  readonly code: ErrorCode;
  /** Structured details for logs. */
  readonly details: Readonly<Record<string, unknown>>;
  private readonly [marker] = true;

  constructor(code: ErrorCode, message: string, options: ChatstateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = Object.freeze({ ...options.details });
  }

  /** True for any chatstate error, even one thrown by another installed copy of the library. */
  static isInstance(value: unknown): value is ChatstateError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /** True when `value` is a chatstate error with one of `codes`. */
  static hasCode(value: unknown, ...codes: readonly ErrorCode[]): value is ChatstateError {
    return ChatstateError.isInstance(value) && codes.includes(value.code);
  }

  /**
   * A copy of this error told with `message` and `details` (this error's own by default): the same
   * class, code and fields (`retryable`, `provider`, …), with this error as its `cause`. For passing
   * an error on in other words — with the caller's names, or saying what was being done.
   */
  withMessage(message: string, details: Readonly<Record<string, unknown>> = this.details): this {
    // Made as a native Error of this error's class, without calling its constructor (each subclass
    // takes other parameters); its stack is taken here and begins with the new message.
    const copy = Reflect.construct(Error, [message, { cause: this }], this.constructor) as this;
    for (const key of Reflect.ownKeys(this)) {
      if (key === 'message' || key === 'stack' || key === 'cause') continue;
      Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(this, key) as PropertyDescriptor);
    }
    if (details !== this.details)
      Object.defineProperty(copy, 'details', {
        value: Object.freeze({ ...details }),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    return copy;
  }
}

/** The caller passed something invalid: fix the input, do not retry. */
export class InvalidInputError extends ChatstateError {}

/** The requested thing does not exist. */
export class NotFoundError extends ChatstateError {
  constructor(message: string, options?: ChatstateErrorOptions) {
    super('NOT_FOUND', message, options);
  }
}

/** The caller did not prove who it is (no key, or a key that is not known). */
export class UnauthorizedError extends ChatstateError {
  constructor(message: string, options?: ChatstateErrorOptions) {
    super('UNAUTHORIZED', message, options);
  }
}

/** The caller is known but may not do this (a member key writing another user's data, …). */
export class ForbiddenError extends ChatstateError {
  constructor(message: string, options?: ChatstateErrorOptions) {
    super('FORBIDDEN', message, options);
  }
}

/** A concurrent writer changed the data first: reload and retry. */
export class ConflictError extends ChatstateError {
  constructor(message: string, options?: ChatstateErrorOptions) {
    super('CONFLICT', message, options);
  }
}

/**
 * The store (or manager) was closed by its owner: a mistake in the calling code's lifecycle, not
 * in its input. Not retryable on this instance; open a new one.
 */
export class ClosedError extends ChatstateError {
  constructor(message: string, options?: ChatstateErrorOptions) {
    super('CLOSED', message, options);
  }
}

/** Details every `UnsupportedError` carries. */
export interface UnsupportedDetails {
  /** The store (or collaborator) that lacks the capability. */
  readonly store: string;
  /** The missing capability, as the driver contract names it (e.g. `values`). */
  readonly capability: string;
  readonly [key: string]: unknown;
}

/**
 * The store was built on a driver without the capability an operation needs (e.g. active memory's
 * `values`): not the caller's input, and not retryable. Use a store whose driver declares it.
 */
export class UnsupportedError extends ChatstateError {
  constructor(message: string, details: UnsupportedDetails, options: { cause?: unknown } = {}) {
    super('UNSUPPORTED', message, { cause: options.cause, details: { ...details } });
  }
}

/** Stored or received data is damaged or was tampered with. */
export class DataError extends ChatstateError {}

/** A collaborator (summarizer, model, provider) failed or broke a rule. */
export class CollaboratorError extends ChatstateError {}

/** Details every `UnavailableError` carries. */
export interface UnavailableDetails {
  /** Which store (or collaborator) could not be reached. */
  readonly store: string;
  /** Why, in a few words: `LOCKED`, `CONNECTION`, `TIMEOUT`, `UNCONFIRMED`, … */
  readonly reason: string;
  /**
   * Whether the operation may have taken effect although it failed (the connection dropped after
   * the request was sent). Retrying is still safe for appends, which are idempotent by message id.
   */
  readonly outcome?: 'not-applied' | 'unknown' | 'applied';
  readonly [key: string]: unknown;
}

/**
 * A store (or another collaborator) cannot be reached right now: a server down, restarting or
 * stalled, a lock held past its timeout. Always `retryable`: the same call may succeed later, on
 * the same store instance.
 */
export class UnavailableError extends CollaboratorError {
  /** Always true: trying again later can succeed. */
  readonly retryable = true;

  constructor(message: string, details: UnavailableDetails, options: { cause?: unknown } = {}) {
    super('UNAVAILABLE', message, { cause: options.cause, details: { retryable: true, ...details } });
  }
}

/** Details every `ModelError` carries. */
export interface ModelErrorDetails {
  /** The adapter's provider format, e.g. `openaiChat`. */
  readonly provider: string;
  /** HTTP status of the provider's answer, when there was one. */
  readonly status?: number;
  /** True when the same call may succeed later (429, 5xx, connection errors). */
  readonly retryable: boolean;
  /** Provider's request id, for support tickets. */
  readonly requestId?: string;
  /** How long the provider asked the caller to wait before trying again (its `retry-after`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** `CONTEXT_OVERFLOW`: the model's context window in tokens, when the provider said it. */
  readonly limitTokens?: number;
  /**
   * `CONTEXT_OVERFLOW`: the tokens the provider counted against `limitTokens`, when it said them (the
   * prompt, or the prompt plus the requested output where the provider adds them up).
   */
  readonly requestedTokens?: number;
}

/**
 * A model call failed: `RATE_LIMITED` (429), `CONTEXT_OVERFLOW` (the request is longer than the
 * model's context window: never retryable as it is, it must be made shorter), `ABORTED` (the
 * caller's signal), or `MODEL_FAILED` (any other provider or transport failure). `retryable` says
 * whether trying again can help.
 */
export class ModelError extends CollaboratorError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(
    code: 'MODEL_FAILED' | 'RATE_LIMITED' | 'CONTEXT_OVERFLOW' | 'ABORTED',
    message: string,
    details: ModelErrorDetails,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause, details: { ...details } });
    this.provider = details.provider;
    this.status = details.status;
    this.retryable = details.retryable;
  }
}

/**
 * A one-line description of any thrown value, for error messages and warnings. It never throws:
 * a collaborator or a hostile getter may throw anything, even a null-prototype object that
 * `String()` cannot convert, and reporting that failure must not become a failure of its own.
 */
export function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'a value that cannot be printed was thrown';
  }
}

/** Formats a zod-style issue list into one readable line. */
export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
