/**
 * Aborting a turn: one `ABORTED` error whatever was running (the model call, a tool, the wait
 * between them), and a race that stops waiting for work that ignores the signal.
 * @module
 */
import { ModelError } from '../errors.js';
import type { ProviderName } from '../message/schema.js';

/** The error of an aborted turn (`ModelError` with code `ABORTED`, as an aborted model call throws). */
export function abortedTurn(provider: ProviderName, signal: AbortSignal | undefined): ModelError {
  return new ModelError(
    'ABORTED',
    `${provider}: the turn was aborted`,
    { provider, retryable: false },
    { cause: signal?.reason },
  );
}

/** Throws `ABORTED` when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined, provider: ProviderName): void {
  if (signal?.aborted === true) throw abortedTurn(provider, signal);
}

/**
 * `work`, or `ABORTED` as soon as `signal` fires: a tool that ignores its signal must not hold the
 * turn (its late result is discarded).
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, provider: ProviderName): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortedTurn(provider, signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortedTurn(provider, signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
