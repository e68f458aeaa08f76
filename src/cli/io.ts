/**
 * The streams and environment a run of the `chatstate` command talks to: the process's own in
 * `bin.ts`, replaceable in a test.
 * @module
 */
import type { Readable, Writable } from 'node:stream';

/** A writable stream that may be a terminal. */
export type OutputStream = Writable & { readonly isTTY?: boolean; readonly columns?: number };

/** Where a run reads and writes. */
export interface CliIo {
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** True when `stream` is a terminal a person reads. */
export function isTerminal(stream: { readonly isTTY?: boolean }): boolean {
  return stream.isTTY === true;
}

/**
 * Options for `util.styleText` once `colorsAllowed` has decided: Node's own check would also drop
 * colors on a terminal whenever `CI` is set, which is not this command's rule.
 */
export const UNCHECKED = { validateStream: false } as const;

/** True when colors may be written to `stream`: a terminal, and `NO_COLOR` unset or empty (no-color.org). */
export function colorsAllowed(stream: { readonly isTTY?: boolean }, env: CliIo['env']): boolean {
  const noColor = env.NO_COLOR;
  return isTerminal(stream) && (noColor === undefined || noColor === '');
}
