/**
 * A store the command cannot open is reported naming it (its password hidden) and keeps the
 * store's own error class: an unreachable server stays an `UnavailableError` with `retryable`, a
 * bad URL an `InvalidInputError` (a usage error); anything else thrown is `UNAVAILABLE`.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatstateError, InvalidInputError, NotFoundError, UnavailableError } from '../errors.js';
import { registerStore } from '../stores/open-store.js';
import { openForChecks } from './commands/verify.js';
import { CliContext } from './context.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import type { CliIo } from './io.js';
import { loadKey } from './keys.js';
import { sessionFrom } from './session-source.js';

const SECRET = 'hunter2';

// Stores whose servers cannot be reached, as a driver reports it (and as a foreign one might).
registerStore('down-for-test', async (url) => {
  throw new UnavailableError(`down-for-test: the server of ${url} cannot be reached (no connection)`, {
    store: 'down-for-test',
    reason: 'CONNECTION',
  });
});
registerStore('raw-for-test', async (url) => {
  throw new Error(`socket hang up talking to ${url}`);
});

const contexts: CliContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

/** A run of the command with `--store url`. */
function run(url: string): CliContext {
  const io: CliIo = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: {} };
  const context = new CliContext(io, { store: url });
  contexts.push(context);
  return context;
}

/** The error opening the run's store rejects with. */
async function openFailure(url: string): Promise<ChatstateError> {
  const error: unknown = await run(url)
    .store()
    .then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
  if (!ChatstateError.isInstance(error)) throw new Error(`expected a chatstate error, got ${String(error)}`);
  return error;
}

describe('a store the command cannot open', () => {
  it('unreachable: an UnavailableError with retryable, named without its password', async () => {
    const error = await openFailure(`down-for-test://user:${SECRET}@db.internal/sessions`);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true, details: { reason: 'CONNECTION' } });
    expect(error.message).toMatch(/^Cannot open store "down-for-test:\/\/user:\*\*\*@db\.internal\/sessions": /);
    expect(error.message).not.toContain(SECRET);
    expect(error.cause).toBeInstanceOf(UnavailableError);
    expect(exitCodeOf(error)).toBe(EXIT.problems);
  });

  it('the same from verify and repair, which open the store with a damage log', async () => {
    const error: unknown = await openForChecks(run(`down-for-test://user:${SECRET}@db.internal/sessions`)).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    // Named once, without its password.
    expect((error as Error).message).toMatch(
      /^Cannot open store "down-for-test:\/\/user:\*\*\*@db\.internal\/sessions": down-for-test: /,
    );
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('anything else thrown while opening: an UnavailableError too, never a plain one', async () => {
    const error = await openFailure(`raw-for-test://user:${SECRET}@db.internal/sessions`);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(error.details['store']).toBe('raw-for-test://user:***@db.internal/sessions');
    expect(error.message).toContain('socket hang up talking to raw-for-test://user:***@db.internal/sessions');
    expect(error.message).not.toContain(SECRET);
  });

  it('a URL no store takes: an InvalidInputError, the caller’s mistake (exit 2)', async () => {
    const error = await openFailure('nosuch://x');
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/^Cannot open store "nosuch:\/\/x": unknown scheme "nosuch:"/);
    expect(exitCodeOf(error)).toBe(EXIT.usage);
  });
});

describe('errors the command makes itself', () => {
  it('a key file that cannot be read is a NotFoundError', async () => {
    const error: unknown = await loadKey('/nonexistent/chatstate.key', {}).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a reference that is neither a file nor a session id is a NotFoundError', async () => {
    const error: unknown = await sessionFrom(run('memory:'), 'no such file, nor an id', 'show').catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'NOT_FOUND' });
  });
});
