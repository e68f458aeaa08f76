/**
 * The core's change feed (`SessionStore.changes`): it tells this store's own committed writes
 * itself, so every store has a feed, and joins the driver's feed of every process's writes when
 * the driver has one (`ChangeFeedDriver`). A change the core told is not told again when the
 * driver's feed brings it back.
 * @module
 */
import { ChatstateError, InvalidInputError, errorMessage } from '../errors.js';
import { BoundedMap } from '../internal/bounded-map.js';
import { closedError } from './driver-helpers.js';
import type {
  ChangeCoverage,
  ChangeEvent,
  ChangeFeed,
  ChangeFeedDriver,
  ChangeFeedState,
  ChangeListener,
  DriverChange,
} from './change-types.js';

/** Changes remembered to drop their echo, and for how long: an echo later than that is told again (harmless). */
const RECENT = 1024;
const RECENT_MS = 5000;

/** Who told a change first: this store, or the driver's feed. */
type Side = 'local' | 'driver';

// A delete's version is not known to the core (0), so its echo is matched by id alone.
function keyOf(change: DriverChange): string {
  return change.kind === 'delete' ? `d\n${change.id}` : `${change.kind}\n${change.id}\n${change.version}`;
}

/** The feed of one core store. */
export class CoreChangeFeed implements ChangeFeed {
  readonly coverage: ChangeCoverage;
  private readonly listeners = new Set<ChangeListener>();
  /** Changes told lately, by key: the same change from the other side is its echo. */
  private readonly recent = new BoundedMap<string, { readonly side: Side; readonly at: number }>({ max: RECENT });
  private current: ChangeFeedState;
  /** The driver's watch: starting, or its stop function. */
  private watch: Promise<(() => Promise<void>) | undefined> | undefined;
  private closed = false;
  /** Counts the driver's watches (see `start`). */
  private generation = 0;

  constructor(
    private readonly store: string,
    private readonly driver: ChangeFeedDriver | undefined,
  ) {
    this.coverage = driver !== undefined ? 'all' : 'this-store';
    this.current = driver === undefined ? 'live' : 'connecting';
  }

  get state(): ChangeFeedState {
    return this.current;
  }

  subscribe(listener: ChangeListener): () => void {
    if (typeof listener !== 'function')
      throw new InvalidInputError('INVALID_ARGUMENT', `${this.store}: subscribe needs a function`);
    // A closed store tells nothing more: a listener added now would wait forever.
    if (this.closed) throw closedError(this.store);
    const entry: ChangeListener = (event) => listener(event);
    this.listeners.add(entry);
    if (this.listeners.size === 1) this.start();
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.listeners.delete(entry);
      if (this.listeners.size === 0) void this.stop();
    };
  }

  /** A write this store committed. */
  local(change: DriverChange): void {
    if (this.listeners.size === 0) return;
    if (this.driver === undefined || this.first(change, 'local')) this.emit({ type: 'change', ...change });
  }

  /**
   * True when `change` is new, false when it is the echo of the same change the other side told
   * lately (whichever comes first is told: a notification may beat the write's own reply).
   */
  private first(change: DriverChange, side: Side): boolean {
    const key = keyOf(change);
    const now = Date.now();
    const seen = this.recent.get(key);
    this.recent.delete(key);
    if (seen !== undefined && seen.side !== side && now - seen.at <= RECENT_MS) return false;
    this.recent.set(key, { side, at: now });
    return true;
  }

  /** This store removed sessions it cannot name (a remote purge or forget): every listener reads again. */
  unnamed(): void {
    if (this.listeners.size > 0) this.emit({ type: 'reset', reason: 'unnamed-changes' });
  }

  /** Stops the driver's watch for good (the store closes). */
  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.stop();
  }

  private start(): void {
    const driver = this.driver;
    if (driver === undefined || this.closed || this.watch !== undefined) return;
    this.current = 'connecting';
    // A watch being stopped may still report: only the current one speaks for the feed.
    const generation = ++this.generation;
    const current = (): boolean => generation === this.generation;
    this.watch = driver
      .watchChanges({
        change: (change) => {
          if (current() && this.first(change, 'driver')) this.emit({ type: 'change', ...change });
        },
        live: (gap) => {
          if (!current()) return;
          this.current = 'live';
          if (gap) this.emit({ type: 'reset', reason: 'reconnected' });
        },
        interrupted: (error) => {
          if (!current() || this.current === 'interrupted') return;
          this.current = 'interrupted';
          this.emit({ type: 'interrupted', error });
        },
      })
      .catch((error: unknown) => {
        if (!current()) return undefined;
        // A driver that breaks its promise never to reject: reported like an outage, never thrown.
        this.current = 'interrupted';
        this.emit({
          type: 'interrupted',
          error: ChatstateError.isInstance(error)
            ? error
            : new ChatstateError('INTERNAL', `${this.store}: the change feed failed: ${errorMessage(error)}`, {
                cause: error,
              }),
        });
        return undefined;
      });
  }

  private async stop(): Promise<void> {
    const watch = this.watch;
    if (watch === undefined) return;
    this.watch = undefined;
    this.generation += 1;
    this.recent.clear();
    if (this.driver !== undefined) this.current = 'connecting';
    const stop = await watch;
    await stop?.().catch(() => undefined);
  }

  private emit(event: ChangeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        // One listener's bug must not stop the others, nor the write that is telling them.
        process.emitWarning(`${this.store}: a change listener threw: ${errorMessage(error)}`, {
          code: 'CHATSTATE_CHANGE_FEED',
        });
      }
    }
  }
}
