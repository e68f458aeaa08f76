/**
 * The queue in front of the store's own pool. `pg`'s pool bounds a checkout by one timer, whether
 * it opens a connection or waits for a busy one; so a burst on one hot session, waiting behind
 * commits that hold its row lock, would be refused as "cannot be reached" after the connect
 * timeout. The gate takes the waiting: the pool only ever opens a connection or hands over an idle
 * one (bounded by the connect timeout), and a request waits here, in order, for up to the command
 * timeout — refused then as `UNAVAILABLE` with reason `BUSY`, nothing applied.
 * @module
 */
import { UnavailableError } from '../../errors.js';

/** At most `permits` checkouts at once; the others wait their turn. */
export class ConnectionGate {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly permits: number,
    private readonly store: string,
  ) {
    this.free = permits;
  }

  /** A permit within `waitMs` (the function that gives it back); `UNAVAILABLE` (`BUSY`) after that. */
  async acquire(waitMs: number): Promise<() => void> {
    if (this.free > 0) {
      this.free -= 1;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const turn = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(turn), 1);
        reject(
          new UnavailableError(`${this.store}: all ${this.permits} connections stayed busy for ${waitMs} ms`, {
            store: this.store,
            reason: 'BUSY',
            outcome: 'not-applied',
          }),
        );
      }, waitMs);
      this.waiting.push(turn);
    });
    return this.releaser();
  }

  /** Gives the permit to the next in line, or back to the gate; once only. */
  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next === undefined) this.free += 1;
      else next();
    };
  }
}
