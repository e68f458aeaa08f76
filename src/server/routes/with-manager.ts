/**
 * A `SessionManager` for one request: the routes that fork, continue or delete sessions run
 * through one, so they follow the library's rules exactly (the manager owns the links between
 * sessions), and tell the request's event streams about every other session it wrote.
 * @module
 */
import { SessionManager } from '../../manager/session-manager.js';

/**
 * Runs `work` with a manager over `store` (no auto-save, not owning the store), closed after;
 * `changed` hears of each session the manager writes.
 */
export async function withManager<T>(
  // The manager's own store type: whichever module the store contract lives in.
  store: SessionManager['store'],
  changed: (sessionId: string) => void,
  work: (manager: SessionManager) => Promise<T>,
): Promise<T> {
  const manager = new SessionManager({ store, autoSaveIntervalMs: false, ownsStore: false });
  manager.on('saved', ({ session }) => changed(session.id));
  try {
    return await work(manager);
  } finally {
    await manager.close();
  }
}
