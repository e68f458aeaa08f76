/**
 * API keys: each maps to a tenant, a role and optionally a user. Only a key's SHA-256 is kept (in
 * the key file and in memory), so a leaked key file opens nothing. Keys are long random strings,
 * so a fast hash is enough: there is nothing to brute-force.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InvalidInputError, NotFoundError, errorMessage } from '../../errors.js';
import { assertOwnerId } from '../../ids.js';
import { TENANT_PATTERN } from '../../tenancy/names.js';

/** What a key may do: `admin` everything in its tenant; `member` its tenant's (or its user's) sessions. */
export type Role = 'admin' | 'member';

/** Who a request is: the tenant, role and user (if bound) of its key. */
export interface Principal {
  readonly tenant: string;
  readonly role: Role;
  /** A key bound to a user sees only that user's sessions and values. */
  readonly userId?: string;
  /** The key's id (never its secret), for logs. */
  readonly keyId: string;
}

const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** One entry of the key file. */
const keyEntrySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a key id of letters, digits, ".", "_" or "-"'),
  hash: z.string().regex(HASH_PATTERN, 'sha256: and 64 hex digits'),
  tenant: z.string().regex(TENANT_PATTERN, 'a tenant id of lowercase letters, digits and dashes'),
  role: z.enum(['admin', 'member']),
  userId: z.string().optional(),
});

/** The key file: `{ "keys": [ { id, hash, tenant, role, userId? } ] }`. */
const keyFileSchema = z.strictObject({ keys: z.array(keyEntrySchema) });

/** One key as the key file holds it. */
export type KeyEntry = z.infer<typeof keyEntrySchema>;

/** The stored form of `secret`: `sha256:` and its hex digest. */
export function hashKey(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

/** A new key: its secret (shown once) and the entry that stores only its hash. */
export function newKey(grant: { tenant: string; role: Role; userId?: string; id?: string }): {
  secret: string;
  entry: KeyEntry;
} {
  const id = grant.id ?? `key-${randomBytes(4).toString('hex')}`;
  const secret = `csk_${randomBytes(32).toString('base64url')}`;
  const entry = keyEntrySchema.parse({
    id,
    hash: hashKey(secret),
    tenant: grant.tenant,
    role: grant.role,
    ...(grant.userId === undefined ? {} : { userId: assertOwnerId(grant.userId, 'userId') }),
  });
  return { secret, entry };
}

/** The keys a server accepts, by hash. */
export class KeyRing {
  private readonly byHash: ReadonlyMap<string, Principal>;
  private readonly hashById: ReadonlyMap<string, string>;

  constructor(entries: readonly KeyEntry[]) {
    const byHash = new Map<string, Principal>();
    const hashById = new Map<string, string>();
    for (const raw of entries) {
      const entry = keyEntrySchema.parse(raw);
      if (hashById.has(entry.id)) throw new InvalidInputError('INVALID_ARGUMENT', `Two keys have the id ${entry.id}`);
      if (byHash.has(entry.hash)) throw new InvalidInputError('INVALID_ARGUMENT', `Key ${entry.id} repeats a hash`);
      hashById.set(entry.id, entry.hash);
      byHash.set(
        entry.hash,
        Object.freeze({
          tenant: entry.tenant,
          role: entry.role,
          keyId: entry.id,
          ...(entry.userId === undefined ? {} : { userId: assertOwnerId(entry.userId, 'userId') }),
        }),
      );
    }
    this.byHash = byHash;
    this.hashById = hashById;
  }

  /** How many keys the ring holds (none: the server runs unauthenticated, on loopback only). */
  get size(): number {
    return this.byHash.size;
  }

  /** The principal of `secret`, or `undefined` for a key the ring does not hold. */
  principalOf(secret: string): Principal | undefined {
    return this.byHash.get(hashKey(secret));
  }

  /** The stored hash of the key with id `keyId`, if the ring holds it. */
  hashOf(keyId: string): string | undefined {
    return this.hashById.get(keyId);
  }

  /** The principal of the key with id `keyId`, if the ring holds it. */
  principalById(keyId: string): Principal | undefined {
    const hash = this.hashById.get(keyId);
    return hash === undefined ? undefined : this.byHash.get(hash);
  }

  /** The ring of key file `path` (`NOT_FOUND` when missing; `INVALID_ARGUMENT` naming the problem otherwise). */
  static async fromFile(path: string): Promise<KeyRing> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new NotFoundError(`Cannot read the key file ${path}: ${errorMessage(error)}`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new InvalidInputError('INVALID_ARGUMENT', `The key file ${path} is not JSON: ${errorMessage(error)}`);
    }
    const checked = keyFileSchema.safeParse(parsed);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `The key file ${path}: ${issue === undefined ? 'invalid' : `${issue.path.join('.') || '(root)'}: ${issue.message}`}`,
      );
    }
    return new KeyRing(checked.data.keys);
  }
}
