/**
 * Input named on the command line: a file, or `-` for stdin; JSON parsed with the position of a
 * syntax error.
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { jsonErrorOffset, positionOf } from '../json-position.js';

/** Reads all of `stream` as UTF-8. */
export async function readStream(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The name `path` is shown with in messages (`stdin` for `-`). */
export function sourceName(path: string): string {
  return path === '-' ? 'stdin' : path;
}

/** The text of file `path`, or of stdin for `-`; `NOT_FOUND` (with the system's reason) when it cannot be read. */
export async function readText(path: string, stdin: Readable): Promise<string> {
  if (path === '-') return readStream(stdin);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'EISDIR'
        ? 'it is a directory'
        : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new NotFoundError(`Cannot read ${JSON.stringify(path)}: ${reason}`, { cause: error, details: { path } });
  }
}

/** Parses JSON; `INVALID_ARGUMENT` naming `source` and the line:column of the first error. */
export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const offset = jsonErrorOffset(text) ?? 0;
    const { line, column } = positionOf(text, offset);
    const reason =
      offset >= text.length
        ? 'unexpected end of input'
        : `unexpected ${JSON.stringify(text.slice(offset, offset + 1))}`;
    throw new InvalidInputError('INVALID_ARGUMENT', `${source}:${line}:${column}: not JSON (${reason})`, {
      cause: error,
      details: { source, line, column },
    });
  }
}

/** Reads and parses the JSON of file `path` (or stdin for `-`). */
export async function readJson(path: string, stdin: Readable): Promise<unknown> {
  return parseJson(await readText(path, stdin), sourceName(path));
}
