/** Shared assertion support for typed errors. */
import { ChatstateError } from '../../src/errors.js';

/** The `code` of the ChatstateError `run` throws; `undefined` when it does not throw. */
export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return ChatstateError.isInstance(error) ? error.code : 'not a ChatstateError';
  }
  return undefined;
}

/** What `run` did, for tables of hostile inputs: the code it threw, `accepted`, or `untyped …` for anything but a chatstate error. */
export function outcomeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return ChatstateError.isInstance(error) ? error.code : `untyped ${String(error)}`;
  }
  return 'accepted';
}

/** The ChatstateError `run` throws; anything else it throws is rethrown, and not throwing fails the test. */
export function thrownBy(run: () => unknown): ChatstateError {
  try {
    run();
  } catch (error) {
    if (ChatstateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ChatstateError, but nothing was thrown');
}

/** The `code` of the ChatstateError `promise` rejects with; `undefined` when it resolves. */
export async function rejectionCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return ChatstateError.isInstance(error) ? error.code : 'not a ChatstateError';
  }
  return undefined;
}

/** The ChatstateError `promise` rejects with; any other rejection, or resolving, fails the test. */
export async function rejectionOf(promise: Promise<unknown>): Promise<ChatstateError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ChatstateError.isInstance(error)) throw new Error(`expected a ChatstateError, got ${String(error)}`);
  return error;
}
