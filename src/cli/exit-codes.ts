/**
 * Exit codes of the `chatstate` command and how an error maps to one, and the one-line error report.
 * @module
 */
import { CommanderError } from 'commander';
import { ChatstateError, errorMessage } from '../errors.js';

/** Exit codes: 0 ok, 1 problems found (or the operation failed), 2 usage error. */
export const EXIT = Object.freeze({ ok: 0, problems: 1, usage: 2 });

/** The exit code for an error: usage errors (bad flags, arguments, ids) are 2, everything else 1. */
export function exitCodeOf(error: unknown): number {
  // Help and version exit 0 (help shown because no command was given exits 1 in commander: a usage error).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (ChatstateError.hasCode(error, 'INVALID_ARGUMENT', 'INVALID_ID')) return EXIT.usage;
  return EXIT.problems;
}

/** The code printed with an error: its `ChatstateError` code, `INVALID_ARGUMENT` for commander's, the system code, or `INTERNAL`. */
export function errorCodeOf(error: unknown): string {
  if (ChatstateError.isInstance(error)) return error.code;
  if (error instanceof CommanderError) return 'INVALID_ARGUMENT';
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : 'INTERNAL';
}

/** The one line `error CODE: message` (a stack and causes follow with `debug`). */
export function errorReport(error: unknown, debug: boolean): string {
  const message =
    error instanceof CommanderError
      ? error.message.replace(/^error: /, '')
      : errorMessage(error).replace(/\s*\n\s*/g, ' ');
  const line = `error ${errorCodeOf(error)}: ${message}`;
  if (!debug) return line;
  const stacks: string[] = [];
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 8;
    current = current.cause, depth++
  ) {
    stacks.push(`${depth === 0 ? '' : 'caused by: '}${current.stack ?? String(current)}`);
  }
  return [line, ...stacks].join('\n');
}
