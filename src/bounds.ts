/**
 * Bounds of the numbers a caller gives: checked where they enter (schemas of the API, the CLI and
 * importers) and again in the core, so that no arithmetic on them — a next sequence number, an
 * expiry time — leaves the range where it is exact and where dates exist.
 * @module
 */

/**
 * The largest sequence number a caller may give a message (2^48). Stores number the messages after
 * it on from there; 2^53 − 2^48 appends later they would still be exact integers.
 */
export const MAX_SEQ = 2 ** 48;

/** The longest retention a session may be given: 100 years, in milliseconds. */
export const MAX_TTL_MS = 100 * 365 * 24 * 60 * 60 * 1000;

/**
 * The largest count, size, limit or offset a caller may give where no tighter bound applies
 * (2^31 − 1): far past any real use, and within the 32-bit integers some backends and libraries
 * keep such numbers in.
 */
export const MAX_COUNT = 2 ** 31 - 1;

/** The largest duration in milliseconds a caller may give an option (a grace period, a poll interval): one day. */
export const MAX_OPTION_MS = 24 * 60 * 60 * 1000;

/**
 * The largest version a caller may give a session (2^48), as the `version` of the session a save
 * writes. Stores count versions on from there; 2^53 − 2^48 writes later they would still be exact.
 */
export const MAX_VERSION = 2 ** 48;

/**
 * Past `MAX_VERSION`, how far a save may go beyond the version the store would give: the changes a
 * session read from the store may have made in memory (each bumps its version) before it is saved.
 */
export const MAX_VERSION_STEP = 2 ** 20;
