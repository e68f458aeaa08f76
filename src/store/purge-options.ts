/**
 * The options of `purgeExpired`, checked once in the core before any driver sees them: a prefix of
 * the wrong type, empty or too long must fail, never purge more than was asked (an ignored prefix
 * would purge every tenant of a shared store).
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { ID_PREFIX } from './list-query.js';

/** Checked options of `purgeExpired`: `idPrefix` present only when given. */
export interface CheckedPurgeOptions {
  readonly idPrefix?: string;
}

function invalid(store: string, message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `${store}: purgeExpired ${message}`);
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The checked options of `purgeExpired` of store `store`; `INVALID_ARGUMENT` for anything else. */
export function checkPurgeOptions(options: unknown, store: string): CheckedPurgeOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalid(store, `takes an options object, not ${shown(options)}`);
  let idPrefix: unknown;
  try {
    // Each field read once, here: the check and the driver see the same value.
    for (const key of Object.keys(options)) {
      if (key !== 'idPrefix')
        throw invalid(store, `has no option ${JSON.stringify(key.slice(0, 40))} (it takes idPrefix)`);
    }
    idPrefix = (options as { idPrefix?: unknown }).idPrefix;
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw invalid(store, `options could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (idPrefix === undefined) return {};
  if (typeof idPrefix !== 'string' || !ID_PREFIX.test(idPrefix))
    throw invalid(store, `idPrefix must be the start of a session id (${ID_PREFIX.source}), not ${shown(idPrefix)}`);
  return { idPrefix };
}
