/**
 * The file store's tuning knobs, in one place: how long locks are kept and trusted, when a flush
 * runs on the event loop's thread, when a journal is folded, how much is cached, and how often a
 * read or a lock is tried again. None of them changes what is stored, only how fast and how fair.
 * @module
 */

// ---------------------------------------------------------------------------------------------
// Defaults of the options (see `FileDriverOptions`)

/** `foldBytes`: a journal this large is folded into a new snapshot (reads replay less). */
export const DEFAULT_FOLD_BYTES = 1 << 20;
/** `lockTimeoutMs`: long enough for another process's fold or burst of appends, short enough to surface a stuck one. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/** `cacheBytes`: sessions' records kept between calls, a modest share of a server's memory. */
export const DEFAULT_CACHE_BYTES = 64 << 20;
/** `maxOpenFiles`: journals and snapshots kept open, well under the usual 1024 descriptors per process. */
export const DEFAULT_MAX_OPEN_FILES = 256;

// ---------------------------------------------------------------------------------------------
// Cache

/** Sessions remembered between calls, whatever their size: bounds the bookkeeping of many tiny sessions. */
export const MAX_SLOTS = 4096;
/** Blocks read for a range are kept decoded up to this many bytes: the next read of the same tail costs no I/O. */
export const WINDOW_BYTES = 1 << 20;

// ---------------------------------------------------------------------------------------------
// Locks and leases

/** Locks of another host (a shared network directory) are trusted this long: its processes cannot be checked. */
export const FOREIGN_STALE_MS = 30_000;
/** A file-mode lock without readable owner is stale after this long: its creator had microseconds to write it. */
export const UNWRITTEN_STALE_MS = 2000;
/**
 * A session's lock is kept across operations that follow each other closely (a lease): taking and
 * releasing it are two directory changes, and under a lease the files need no new check. After
 * this long of continuous use it is given up as soon as another process waits for it.
 */
export const LEASE_MS = 20;
/** A lease is given up once its session has been idle this long: other processes rarely wait more. */
export const LEASE_IDLE_MS = 2;
/** After giving a lease up to a waiter, this process pauses this long so that the waiter gets its turn. */
export const YIELD_MS = 3;
/** Leases kept while idle, at most: locks and open files stay bounded however many sessions are touched at once. */
export const MAX_IDLE_LEASES = 16;
/** A waiter polls a held lock first after this long (jittered): a failed attempt is one lookup. */
export const LOCK_POLL_FIRST_MS = 0.5;
/** The poll interval doubles up to this: locks are held for a few commits at most (see `LEASE_MS`). */
export const LOCK_POLL_MAX_MS = 4;
/** Attempts to take a free lock that vanishes or turns out stale between the steps of one try. */
export const LOCK_ATTEMPTS = 3;

// ---------------------------------------------------------------------------------------------
// Group commit and flushes

/** A run of pipelined batches holds the session this long at most: one lease, so waiters get their turn. */
export const BATCH_RUN_MS = LEASE_MS;
/**
 * A journal flush runs on the event loop's own thread when nothing else of this store waits and
 * the disk's recent flushes took at most this long: a thread-pool round trip costs about as much
 * as a fast disk's whole flush, and blocking for a fraction of a millisecond holds nobody up.
 */
export const BLOCKING_FLUSH_MAX_MS = 1;
/** Once appends overlapped, flushes go to the thread pool for this long (renewed while they overlap), so they overlap too. */
export const CONCURRENT_HOLD_MS = 20;
/** Weight of the latest flush in the moving average of flush times: a few slow flushes move it, one does not. */
export const FLUSH_TIME_WEIGHT = 0.2;

// ---------------------------------------------------------------------------------------------
// Folds

/** A journal is also folded once it holds this share of the snapshot's size: a fold's cost stays proportional to what it saves. */
export const FOLD_SNAPSHOT_SHARE = 0.5;

// ---------------------------------------------------------------------------------------------
// Retries and yields

/** Unlocked reads tried again while a fold, replace or delete keeps changing the files under them. */
export const READ_ATTEMPTS = 5;
/** Reads tried again after damage found in a part of a snapshot read late (repaired) or a snapshot replaced meanwhile. */
export const REPAIR_ATTEMPTS = 4;
/** Rebuilding the session index lets other work run after this many sessions read. */
export const INDEX_YIELD_EVERY = 256;
