/**
 * The encryption key of a store opened by the CLI: from `--key-file PATH` or the `CHATSTATE_KEY`
 * environment variable, never from a flag holding the key itself (other users of the machine can
 * read a process's arguments). Either holds a secret (16+ characters) or a key ring as JSON
 * (`{"current":"k2","keys":{"k1":"…","k2":"…"}}`), as `encryption` takes them.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { InvalidInputError, NotFoundError } from '../errors.js';
import type { AtRestKey } from '../store/at-rest.js';

/** The key text as a secret or a key ring. */
export function parseKey(text: string, source: string): AtRestKey {
  const trimmed = text.trim();
  if (trimmed.length === 0)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${source} is empty: expected a secret of 16+ characters or a key ring as JSON`,
    );
  if (!trimmed.startsWith('{')) return trimmed;
  let ring: unknown;
  try {
    ring = JSON.parse(trimmed);
  } catch {
    // Never echo the text: it is a secret.
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${source} starts with "{" but is not a JSON key ring {"current":…,"keys":{…}}`,
    );
  }
  return ring as AtRestKey;
}

/** The key from `keyFile` (when given) or `CHATSTATE_KEY`, or `undefined` for a store without encryption. */
export async function loadKey(
  keyFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<AtRestKey | undefined> {
  if (keyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(keyFile, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new NotFoundError(`Cannot read the key file ${JSON.stringify(keyFile)}: ${reason}`, {
        cause: error,
      });
    }
    return parseKey(text, `The key file ${JSON.stringify(keyFile)}`);
  }
  const fromEnv = env.CHATSTATE_KEY;
  return fromEnv === undefined || fromEnv === '' ? undefined : parseKey(fromEnv, 'CHATSTATE_KEY');
}
