/**
 * Forgetting a user (`SessionStore.forgetUser`): the receipt's counts, the fallback for a driver
 * without the forget capability, and the hooks through which copies a process keeps above the
 * store (active memory's recall partitions, a tenant view's) are dropped with the user.
 * @module
 */
import { UnsupportedError } from '../errors.js';
import { hasCapability } from './driver-check.js';
import type { AnyStoreDriver, DriverForgetCounts, DriverForgetResult, ForgetTarget } from './driver-types.js';
import type { ForgetCounts, ForgetReceipt, SessionStore } from './session-store-types.js';

/** Nothing removed. */
export const NO_COUNTS: DriverForgetCounts = Object.freeze({
  sessions: 0,
  messages: 0,
  values: 0,
  sessionValues: 0,
  vectors: 0,
  textRows: 0,
  files: 0,
});

/** The sum of two counts, kind by kind. */
export function addCounts<T extends DriverForgetCounts>(a: T, b: Partial<ForgetCounts>): T {
  const sum: Record<string, number> = { ...a };
  for (const [kind, count] of Object.entries(b)) sum[kind] = (sum[kind] ?? 0) + (count ?? 0);
  return sum as T;
}

/** A frozen receipt. */
export function receiptOf(userId: string, removed: ForgetCounts, at: number): ForgetReceipt {
  return Object.freeze({ userId, at: new Date(at).toISOString(), removed: Object.freeze({ ...removed }) });
}

/** Drops what a process keeps of one user above a store; returns how many cached items went. */
export type ForgetHook = (userId: string) => number;

// Keyed by the store object the copies were made through (a tenant view is a store of its own).
const hooks = new WeakMap<SessionStore, Set<ForgetHook>>();

/**
 * Registers `hook` to run when `store.forgetUser(userId)` has removed the user (with the user id
 * as `store` names it); returns the unregistering function. For caches kept above a store, such
 * as active memory's recall index: the store cannot see them, and must not keep them alive.
 */
export function onUserForgotten(store: SessionStore, hook: ForgetHook): () => void {
  let set = hooks.get(store);
  if (set === undefined) hooks.set(store, (set = new Set()));
  set.add(hook);
  return () => void set.delete(hook);
}

/** Runs the hooks registered on `store` for `userId`; returns the cached items they dropped. */
export function runForgetHooks(store: SessionStore, userId: string): number {
  let dropped = 0;
  for (const hook of [...(hooks.get(store) ?? [])]) dropped += hook(userId);
  return dropped;
}

/** Heads listed at a time by the fallback. */
const FORGET_PAGE = 500;

/**
 * The forget of a driver without `forgetUser`: its sessions are listed by user (expired ones
 * too) and removed one by one. A driver that keeps values cannot be forgotten this way (the core
 * cannot enumerate a user's agent namespaces), so that is `UNSUPPORTED` rather than half done.
 */
export async function forgetByListing(driver: AnyStoreDriver, target: ForgetTarget): Promise<DriverForgetResult> {
  if (hasCapability(driver, 'values')) {
    throw new UnsupportedError(
      `${driver.name}: the driver keeps values but does not implement forgetUser, so a user's values cannot all be found`,
      { store: driver.name, capability: 'forget' },
    );
  }
  let counts = NO_COUNTS;
  const sessionIds: string[] = [];
  for (;;) {
    // Removed sessions leave the listing: each page starts at the front again.
    const heads = await driver.list({ limit: FORGET_PAGE, offset: 0, userId: target.userId, now: 0, kinds: 'all' });
    let removed = 0;
    for (const head of heads) {
      if (head.userId !== target.userId || !(await driver.remove(head.id))) continue;
      removed += 1;
      sessionIds.push(head.id);
      counts = addCounts(counts, { sessions: 1, messages: head.messageCount });
    }
    if (heads.length < FORGET_PAGE || removed === 0) return { ...counts, sessionIds };
  }
}
