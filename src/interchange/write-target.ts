/**
 * Files an exporter writes: parent directories made, and a failure (a target that is a file, a
 * full disk, no permission) reported as `STORAGE_FAILED` naming the file instead of a bare errno.
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CollaboratorError, errorMessage } from '../errors.js';

/** Writes `text` to `path`, making its directory; `STORAGE_FAILED` when the file system refuses. */
export async function writeTarget(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw new CollaboratorError('STORAGE_FAILED', `Cannot write ${path}: ${errorMessage(error)}`, {
      cause: error,
      details: { path, ...(typeof code === 'string' ? { errno: code } : {}) },
    });
  }
}
