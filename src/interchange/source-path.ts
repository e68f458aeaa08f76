/**
 * The path an importer is given, checked before it is read: a path that is not there, or of a
 * kind the importer does not read (a directory where it reads a database file), is refused at once
 * with a typed error that says what the importer expected, instead of an operating-system code
 * (`ENOTDIR`, `EISDIR`) or an empty import. A part of a good path that cannot be read stays a
 * problem beside the others (see `Importer`).
 * @module
 */
import { stat } from 'node:fs/promises';
import { InvalidInputError, NotFoundError, errorMessage } from '../errors.js';
import type { JsonProblem } from './json-text.js';

/** What a path is: a directory, or a file (anything else that can be opened counts as one). */
export type SourceKind = 'file' | 'directory';

/** What an importer reads, for its messages. */
export interface SourceExpectation {
  /** The system (`penguin`, `langgraph`, …): messages start with it. */
  readonly system: string;
  /** What the path must be, as words after "expected" (`a LangGraph.js SqliteSaver database file`). */
  readonly expected: string;
  /** The kinds of path the importer reads. */
  readonly kinds: readonly SourceKind[];
}

/**
 * The kind of `path`: `NOT_FOUND` when nothing is there (or it cannot be looked at),
 * `INVALID_ARGUMENT` when it is a kind the importer does not read; both say what was expected.
 */
export async function sourceKind(path: string, expectation: SourceExpectation): Promise<SourceKind> {
  const { system, expected, kinds } = expectation;
  let kind: SourceKind;
  try {
    kind = (await stat(path)).isDirectory() ? 'directory' : 'file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? errorMessage(error)})`;
    throw new NotFoundError(`${system}: ${path} ${why}; expected ${expected}`, {
      cause: error,
      details: { path },
    });
  }
  if (!kinds.includes(kind))
    throw new InvalidInputError('INVALID_ARGUMENT', `${system}: ${path} is a ${kind}; expected ${expected}`, {
      details: { path },
    });
  return kind;
}

/** `problem` (a whole file refused: not JSON, not the system's shape) with what was expected of it. */
export function expecting(problem: JsonProblem, expected: string): JsonProblem {
  return { ...problem, message: `${problem.message}; expected ${expected}` };
}
