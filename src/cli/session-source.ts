/**
 * What `show` and `stats` address: a session id in the store, a session JSON file (or `-` for
 * stdin), or a session directory of a file store (`DIR/sessions/NAME`), read through that store.
 * A path that exists is a path; anything else is an id. Store URLs and store directories are
 * refused with the command to use instead.
 * @module
 */
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { isValidId } from '../ids.js';
import { Session } from '../session/session.js';
import type { SessionStore } from '../store/session-store-types.js';
import { registeredSchemes } from '../stores/open-store.js';
import { decodeName } from '../stores/file/paths.js';
import type { CliContext } from './context.js';
import { readJson } from './input.js';

/** A session found from a command-line reference, and the store it came from (none for a file). */
export interface SourcedSession {
  readonly session: Session;
  readonly store?: SessionStore;
}

async function kindOf(path: string): Promise<'file' | 'directory' | undefined> {
  try {
    const found = await stat(path);
    return found.isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}

function looksLikeStoreUrl(reference: string): boolean {
  const colon = reference.indexOf(':');
  return colon > 1 && registeredSchemes().includes(reference.slice(0, colon + 1).toLowerCase());
}

/** Loads `id` from `store`; `NOT_FOUND` naming the store and id. */
export async function loadFrom(store: SessionStore, id: string): Promise<Session> {
  const session = await store.get(id);
  if (session === undefined)
    throw new NotFoundError(`No session ${JSON.stringify(id)} in store ${store.name}`, { details: { sessionId: id } });
  return session;
}

/**
 * The session `reference` names: `-` (session JSON on stdin), an existing file (session JSON), a
 * session directory of a file store, or an id in the command's store.
 */
export async function sessionFrom(context: CliContext, reference: string, command: string): Promise<SourcedSession> {
  if (reference === '-') return { session: Session.fromJSON(await readJson('-', context.io.stdin)) };
  const kind = await kindOf(reference);
  if (kind === 'file') return { session: Session.fromJSON(await readJson(reference, context.io.stdin)) };
  if (kind === 'directory') {
    const name = basename(reference);
    const id = decodeName(name);
    if (id !== undefined && basename(dirname(reference)) === 'sessions') {
      const store = await context.store(`file:${dirname(dirname(reference))}`);
      return { session: await loadFrom(store, id), store };
    }
    if ((await kindOf(`${reference}/sessions`)) === 'directory') {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${reference} is a file store, not a session: pass it with --store (chatstate ${command} --store file:${reference} ID)`,
      );
    }
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${reference} is a directory: expected a session id, a session JSON file, or a session directory of a file store (DIR/sessions/NAME)`,
    );
  }
  if (looksLikeStoreUrl(reference)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${JSON.stringify(reference)} is a store URL, not a session: pass it with --store (chatstate ${command} --store ${reference} ID)`,
    );
  }
  if (!isValidId(reference)) {
    throw new NotFoundError(`${JSON.stringify(reference)} is neither a file nor a valid session id`);
  }
  const store = await context.store();
  return { session: await loadFrom(store, reference), store };
}
