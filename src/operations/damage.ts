/**
 * Damage reports a store made while an operation read it (the file store's `onDamage`), kept by
 * session until the operation takes them.
 * @module
 */
import type { OpenStoreOptions } from '../store/registry.js';
import type { SessionStore } from '../store/session-store-types.js';
import { openStore } from '../stores/open-store.js';
import type { DamageReport } from '../stores/file/session-repair.js';

export type { DamageReport } from '../stores/file/session-repair.js';

/** Most reports kept for sessions no one asked about yet (others are counted, not kept). */
const MAX_KEPT = 10_000;

/** Collects damage reports; pass `listener` as the file store's `onDamage`. */
export class DamageLog {
  private readonly bySession = new Map<string, DamageReport[]>();
  private kept = 0;
  /** Reports dropped because too many were waiting. */
  dropped = 0;

  /** The `onDamage` listener. */
  readonly listener = (report: DamageReport): void => {
    if (this.kept >= MAX_KEPT) {
      this.dropped += 1;
      return;
    }
    const list = this.bySession.get(report.sessionId) ?? [];
    list.push(report);
    this.bySession.set(report.sessionId, list);
    this.kept += 1;
  };

  /** The reports about session `id` since the last call, removed from the log. */
  take(id: string): DamageReport[] {
    const list = this.bySession.get(id) ?? [];
    this.bySession.delete(id);
    this.kept -= list.length;
    return list;
  }
}

/**
 * Opens the store at `url` with a damage log: a file store reports what its reads repair into
 * it (other stores report nothing and raise `CORRUPT` instead).
 */
export async function openWatched(
  url: string,
  options: OpenStoreOptions = {},
): Promise<{ store: SessionStore; damage: DamageLog }> {
  const damage = new DamageLog();
  // The file store's loader passes its options to `fileStore`, which takes `onDamage`; other stores ignore it.
  const store = await openStore(url, { ...options, onDamage: damage.listener } as OpenStoreOptions);
  return { store, damage };
}
