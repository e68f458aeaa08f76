/**
 * How a tenant's names are kept apart in a shared store: session ids get the prefix `TENANT.`,
 * user ids the prefix `TENANT/`. A tenant id holds neither `.` nor `/`, so a stored name belongs
 * to exactly one tenant, and every name a tenant gives is forced into its own namespace (a name
 * that looks like another tenant's only gets this tenant's prefix in front).
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { MAX_ID_CHARS, MAX_OWNER_ID_CHARS, assertOwnerId, assertValidId } from '../ids.js';

/** The shape of a tenant id: lowercase letters, digits and dashes, at most 32. */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** Returns `tenant` when it is a valid tenant id; otherwise `INVALID_ID`. */
export function assertTenantId(tenant: unknown): string {
  if (typeof tenant !== 'string' || !TENANT_PATTERN.test(tenant)) {
    const shown = typeof tenant === 'string' ? JSON.stringify(tenant.slice(0, 40)) : typeof tenant;
    throw new InvalidInputError('INVALID_ID', `Invalid tenant id ${shown}: expected ${TENANT_PATTERN.source}`, {
      details: { what: 'tenant' },
    });
  }
  return tenant;
}

/** One tenant's mapping between the names it uses and the names the shared store keeps. */
export class TenantNames {
  /** Prefix of the tenant's session ids in the store. */
  readonly sessionPrefix: string;
  /** Prefix of the tenant's user ids in the store. */
  readonly userPrefix: string;

  constructor(readonly tenant: string) {
    assertTenantId(tenant);
    this.sessionPrefix = `${tenant}.`;
    this.userPrefix = `${tenant}/`;
  }

  /** The stored id of the tenant's session `id` (`INVALID_ID` when it is not an id, or too long with the prefix). */
  sessionId(id: unknown, what = 'session id'): string {
    const local = assertValidId(id, what);
    if (local.length + this.sessionPrefix.length > MAX_ID_CHARS) {
      throw new InvalidInputError(
        'INVALID_ID',
        `Invalid ${what} ${JSON.stringify(local.slice(0, 80))}: at most ${MAX_ID_CHARS - this.sessionPrefix.length} characters for tenant ${this.tenant}`,
        { details: { what } },
      );
    }
    return this.sessionPrefix + local;
  }

  /** The tenant's id of stored session `stored`, or `undefined` when it is not the tenant's. */
  localSessionId(stored: string): string | undefined {
    return stored.startsWith(this.sessionPrefix) ? stored.slice(this.sessionPrefix.length) : undefined;
  }

  /** The stored id of the tenant's user `userId` (`INVALID_ID` when it is not one, or too long with the prefix). */
  userId(userId: unknown, what = 'userId'): string {
    const local = assertOwnerId(userId, what);
    if (local.length + this.userPrefix.length > MAX_OWNER_ID_CHARS) {
      throw new InvalidInputError(
        'INVALID_ID',
        `Invalid ${what}: at most ${MAX_OWNER_ID_CHARS - this.userPrefix.length} characters for tenant ${this.tenant}`,
        { details: { what } },
      );
    }
    return this.userPrefix + local;
  }

  /** The tenant's id of stored user `stored`, or `undefined` when it is not the tenant's. */
  localUserId(stored: string): string | undefined {
    return stored.startsWith(this.userPrefix) && stored.length > this.userPrefix.length
      ? stored.slice(this.userPrefix.length)
      : undefined;
  }

  /** The stored user that holds the tenant's app-scope values (no user of the tenant maps to it). */
  get appUser(): string {
    return this.userPrefix;
  }
}
