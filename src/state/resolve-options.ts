/**
 * Validation of the options every state function shares, in one place, so encode, decode and
 * append agree on what a valid provider, key and size limit are.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { PROVIDERS, type ProviderName } from '../message/schema.js';
import { resolveKeyRing, type ResolvedKeyRing } from './key-ring.js';
import { DEFAULT_MAX_STATE_BYTES, type StateOptions } from './types.js';

/** Validated options. */
export interface ResolvedStateOptions {
  readonly provider: ProviderName;
  /** Present when the caller gave a key. */
  readonly ring?: ResolvedKeyRing;
  readonly maxBytes: number;
}

function invalidArgument(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', message);
}

/** Validates `options` and derives the keys; throws `INVALID_ARGUMENT` on anything invalid. */
export function resolveStateOptions(options: StateOptions): ResolvedStateOptions {
  if (typeof options !== 'object' || options === null)
    throw invalidArgument('State options must be an object with a provider');
  const { provider, key, maxBytes = DEFAULT_MAX_STATE_BYTES } = options;
  if (!(PROVIDERS as readonly unknown[]).includes(provider)) {
    throw invalidArgument(
      `Unknown provider ${JSON.stringify(String(provider)).slice(0, 80)}: expected one of ${PROVIDERS.join(', ')}`,
    );
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw invalidArgument('maxBytes must be a positive integer');
  return key === undefined ? { provider, maxBytes } : { provider, ring: resolveKeyRing(key), maxBytes };
}

/** Validates the `encrypt` option: encryption needs a key to derive its cipher key from. */
export function resolveEncrypt(encrypt: unknown, ring: ResolvedKeyRing | undefined): boolean {
  if (encrypt === undefined || encrypt === false) return false;
  if (encrypt !== true) throw invalidArgument('encrypt must be a boolean');
  if (ring === undefined) throw invalidArgument('encrypt: true needs a key');
  return true;
}
