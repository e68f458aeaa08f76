/**
 * `file:` store URLs.
 * @module
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../../errors.js';

/** The directory a `file:` URL names: `file:DIR` relative to the working directory, `file:///abs/dir` absolute. */
export function filePathFromUrl(url: string): string {
  const invalid = (why: string) =>
    new InvalidInputError('INVALID_ARGUMENT', `Cannot open store ${JSON.stringify(url.slice(0, 200))}: ${why}`);
  if (!/^file:/i.test(url)) throw invalid('expected file:DIR or file:///absolute/dir');
  if (url.includes('\0')) throw invalid('the path contains a NUL byte');
  if (/^file:\/\//i.test(url)) {
    try {
      return fileURLToPath(`file:${url.slice('file:'.length)}`);
    } catch (error) {
      throw invalid(`not a local file URL (${(error as Error).message})`);
    }
  }
  const directory = url.slice('file:'.length);
  if (directory.length === 0) throw invalid('expected a directory after file:, such as file:./sessions');
  return path.resolve(directory);
}
