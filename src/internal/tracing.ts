/**
 * chatstate's spans, through the global `TracerProvider` of the optional `@opentelemetry/api`. Off
 * and nearly free without one: a span that does not record builds no attributes and sets no
 * context. Spans nest by chatstate's own async context when the app registered no context manager,
 * so a turn's spans form one tree either way. Tracing never fails the work it traces.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { ChatstateError, errorMessage } from '../errors.js';
import { ERROR_TYPE } from './gen-ai-names.js';
import { otelApi, type Otel } from './otel-api.js';

/** Attribute values chatstate sets (`undefined` ones are left out). */
export type TraceAttributes = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

/** A span as the traced work sees it: every method is a no-op when the span does not record. */
export interface TraceSpan {
  /** True when the span records: only then is building attributes worth it. */
  readonly recording: boolean;
  /** Sets the attributes `build` returns; `build` runs only when the span records. */
  set(build: () => TraceAttributes): void;
  /** Renames the span (a name known only once the work started, as a turn's agent). */
  rename(name: string): void;
  /** Marks the span failed without a throw (a tool call whose error became its result). */
  fail(errorType: string, message: string): void;
}

/** How a span starts. */
export interface TraceOptions {
  /** `client` for a call out of the process (a model); `internal` by default. */
  readonly kind?: 'client' | 'internal';
  /** Its first attributes, built only when it records. */
  readonly attributes?: () => TraceAttributes;
}

const NOOP_SPAN: TraceSpan = Object.freeze({
  recording: false,
  set: () => undefined,
  rename: () => undefined,
  fail: () => undefined,
});

/** The context of chatstate's current span, for apps without a context manager (the API's own then always answers the root). */
const current = new AsyncLocalStorage<Context>();

let cached: { provider: TracerProvider; tracer: Tracer | undefined } | undefined;

/**
 * chatstate's tracer of the global provider (fetched again when the app registers another), or
 * `undefined` while none is registered: the API's proxy has no delegate, and a span would be a
 * no-op, so none is started.
 */
function tracerOf(api: Otel): Tracer | undefined {
  const provider = api.trace.getTracerProvider();
  if (cached?.provider !== provider || cached.tracer === undefined) {
    const tracer =
      provider instanceof api.ProxyTracerProvider
        ? provider.getDelegateTracer('chatstate')
        : provider.getTracer('chatstate');
    cached = { provider, tracer };
  }
  return cached.tracer;
}

/**
 * True when the app registered a context manager (the API's default one keeps no context): then
 * the API's context alone nests spans, and chatstate's own (which turns on Node's async hooks)
 * stays off.
 */
function hasContextManager(api: Otel): boolean {
  const probe = api.ROOT_CONTEXT.setValue(PROBE, true);
  return api.context.with(probe, () => api.context.active() === probe);
}

const PROBE = Symbol('chatstate.context-probe');

/** The parent of a new span: the API's active context, or chatstate's own without a context manager. */
function parentContext(api: Otel, managed: boolean): Context {
  const active = api.context.active();
  if (managed) return active;
  return current.getStore() ?? active;
}

/** Runs `action`, swallowing what it throws: a broken exporter or processor must not fail a turn. */
function guard(action: () => void): void {
  try {
    action();
  } catch {
    // Tracing is best effort.
  }
}

function setAll(span: Span, attributes: TraceAttributes): void {
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (value !== undefined) span.setAttribute(key, value as string | number | boolean | string[]);
  }
}

/** The `error.type` of a failure: a chatstate error's code, else the error's class name. */
export function errorType(error: unknown): string {
  if (ChatstateError.isInstance(error)) return error.code;
  return error instanceof Error ? error.name : 'Error';
}

function recordingSpan(api: Otel, span: Span): TraceSpan {
  return {
    recording: true,
    set: (build) => guard(() => setAll(span, build())),
    rename: (name) => guard(() => span.updateName(name)),
    fail: (type, message) =>
      guard(() => {
        span.setAttribute(ERROR_TYPE, type);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message });
      }),
  };
}

/** The started span and the context it is the span of, or `undefined` when no provider is registered, or the span records nothing and carries no trace. */
function start(
  api: Otel,
  name: string,
  options: TraceOptions,
): { span: Span; context: Context; handle: TraceSpan; managed: boolean } | undefined {
  const tracer = tracerOf(api);
  if (tracer === undefined) return undefined;
  const managed = hasContextManager(api);
  const parent = parentContext(api, managed);
  const kind = options.kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL;
  const span = tracer.startSpan(name, { kind }, parent);
  if (!span.isRecording()) {
    // Sampled out: its context still goes to the children, so that a parent-based sampler drops them too.
    if (api.isSpanContextValid(span.spanContext()))
      return { span, context: api.trace.setSpan(parent, span), handle: NOOP_SPAN, managed };
    span.end();
    return undefined;
  }
  const handle = recordingSpan(api, span);
  if (options.attributes !== undefined) handle.set(options.attributes);
  return { span, context: api.trace.setSpan(parent, span), handle, managed };
}

/**
 * Runs `work` in a span named `name`, child of the current one: the span ends when the work does,
 * with status ERROR and `error.type` (a chatstate error's code) when it throws; the work's result
 * or error is returned as is.
 */
export function traced<T>(name: string, options: TraceOptions, work: (span: TraceSpan) => Promise<T>): Promise<T> {
  const api = otelApi();
  if (api === undefined) return work(NOOP_SPAN);
  let started: ReturnType<typeof start>;
  try {
    started = start(api, name, options);
  } catch {
    started = undefined;
  }
  if (started === undefined) return work(NOOP_SPAN);
  const { span, context, handle, managed } = started;
  let running: Promise<T>;
  try {
    const inContext = (): Promise<T> => api.context.with(context, () => work(handle));
    running = managed ? inContext() : current.run(context, inContext);
  } catch (error) {
    running = Promise.reject(error);
  }
  return running.then(
    (value) => {
      guard(() => span.end());
      return value;
    },
    (error: unknown) => {
      guard(() => {
        if (span.isRecording()) {
          span.setAttribute(ERROR_TYPE, errorType(error));
          span.recordException(error instanceof Error ? error : errorMessage(error));
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorMessage(error) });
        }
        span.end();
      });
      throw error;
    },
  );
}
