/**
 * What a store's directory holds, byte for byte: how the refused-writes spec (and the API's
 * refused-request test) tell that a refused write changed no file.
 * @module
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The file store's inter-process locks (`locks/`): an entry names the process that holds it, never
 * a session's data, and a lock kept across calls (a lease) is released on a timer, so its entries
 * come and go with timing alone (a refused append to a missing session takes that session's lock).
 */
function isLockEntry(relative: string): boolean {
  return relative === 'locks' || relative.startsWith(`locks${path.sep}`);
}

/** Every entry under `directory`, lock entries aside: a file's SHA-256, a link's target, or `directory`. */
export function fileDigests(directory: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const relative = path.relative(directory, full);
      if (isLockEntry(relative)) continue;
      const stat = lstatSync(full);
      if (stat.isDirectory()) {
        found[`${relative}${path.sep}`] = 'directory';
        walk(full);
      } else if (stat.isSymbolicLink()) found[relative] = `link to ${readlinkSync(full)}`;
      else found[relative] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(directory);
  return found;
}
