/** Shared support for SessionManager tests: managers made for a test are closed after it. */
import { afterEach } from 'vitest';
import { SessionManager, type SessionManagerOptions } from '../../src/manager/index.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';

const managers: SessionManager[] = [];

afterEach(async () => {
  await Promise.allSettled(managers.splice(0).map((manager) => manager.close()));
});

/** A manager (auto-save off unless asked) over `options.store` or a fresh memory store. */
export function setup(options: Partial<SessionManagerOptions> = {}): { store: SessionStore; manager: SessionManager } {
  const store = options.store ?? memoryStore();
  const manager = new SessionManager({ autoSaveIntervalMs: false, ...options, store });
  managers.push(manager);
  return { store, manager };
}
