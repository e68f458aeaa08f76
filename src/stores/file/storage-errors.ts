/**
 * The errors a caller of the file store sees: chatstate errors as they are; a file-system error
 * (disk full, I/O error, permission) as `STORAGE_FAILED` naming the store and the errno code;
 * anything else (a bug) untouched.
 * @module
 */
import { ChatstateError, CollaboratorError, errorMessage } from '../../errors.js';
import { errorCode } from './fs-util.js';

/** `error` as the caller of store `store` sees it. */
export function translate(store: string, error: unknown): unknown {
  if (ChatstateError.isInstance(error)) return error;
  const code = errorCode(error);
  if (code === undefined) return error;
  return new CollaboratorError('STORAGE_FAILED', `${store}: ${errorMessage(error)}`, {
    cause: error,
    details: { errno: code },
  });
}

/** Runs a public operation of store `store`, translating its errors. */
export async function guarded<T>(store: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw translate(store, error);
  }
}
