/**
 * What every command runs with: the global options (`--store`, `--json`, `--quiet`, `--debug`,
 * `--key-file`, `--user-keys`), the stores it opened (closed when it ends), output and progress.
 * @module
 */
import { ChatstateError, UnavailableError, errorMessage } from '../errors.js';
import type { AtRestKey } from '../store/at-rest.js';
import type { SessionStore } from '../store/session-store-types.js';
import { openStore } from '../stores/open-store.js';
import { userKeyDirectory } from '../store/user-key-directory.js';
import type { UserKeyStore } from '../store/user-key-store.js';
import type { CliIo } from './io.js';
import { loadKey } from './keys.js';
import { Output } from './output.js';
import { startProgress, type Progress } from './progress.js';
import { checkLocalStore } from './store-presence.js';

/** The store opened when neither `--store` nor `CHATSTATE_STORE` names one. */
export const DEFAULT_STORE = 'file:./.chatstate';

/** Options every command takes. */
export interface GlobalOptions {
  readonly store?: string;
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly debug?: boolean;
  readonly keyFile?: string;
  readonly userKeys?: string;
}

/** A store URL with its password hidden, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

/**
 * The error of a store at `url` that could not be opened, naming the store (password hidden) and
 * keeping the error's class, code and fields (an unreachable server stays `retryable`); anything
 * else thrown is an `UnavailableError`.
 */
export function storeOpenError(url: string, error: unknown): ChatstateError {
  const shown = redactUrl(url);
  const reason = errorMessage(error)
    .split(url)
    .join(shown)
    .replace(/^Cannot open store "[^"]*": /, '');
  const message = `Cannot open store ${JSON.stringify(shown)}: ${reason}`;
  if (ChatstateError.isInstance(error)) return error.withMessage(message);
  return new UnavailableError(message, { store: shown, reason: 'OPEN_FAILED' }, { cause: error });
}

/** The run of one command. */
export class CliContext {
  /** Printing. */
  readonly output: Output;
  private readonly opened = new Map<string, Promise<SessionStore>>();
  private key: Promise<AtRestKey | undefined> | undefined;

  constructor(
    /** Streams and environment. */
    readonly io: CliIo,
    /** The global options as given. */
    readonly options: GlobalOptions,
  ) {
    this.output = new Output(io, { json: options.json === true, quiet: options.quiet === true });
  }

  /** The store URL: `--store`, else `CHATSTATE_STORE`, else `file:./.chatstate`. */
  get storeUrl(): string {
    const fromEnv = this.io.env.CHATSTATE_STORE;
    return this.options.store ?? (fromEnv === undefined || fromEnv === '' ? DEFAULT_STORE : fromEnv);
  }

  /** The encryption key (`--key-file` or `CHATSTATE_KEY`), read once. */
  async encryptionKey(): Promise<AtRestKey | undefined> {
    this.key ??= loadKey(this.options.keyFile, this.io.env);
    return this.key;
  }

  /**
   * The store at `url` (the command's store by default), opened once with the encryption key
   * through `openStore` (every registered scheme works) and closed when the command ends. A store
   * that cannot be opened is an error naming it (password hidden), with the store's own code. A
   * `file:` or `sqlite:` store that does not exist is `NOT_FOUND` naming its path, unless the
   * command can start one (`create`: import, values set, migrate's target, serve), which says on
   * stderr that the store is new: a mistyped `--store` never reads as an empty store.
   */
  async store(url: string = this.storeUrl, options: { readonly create?: boolean } = {}): Promise<SessionStore> {
    let opening = this.opened.get(url);
    if (opening === undefined) {
      opening = this.open(url, options.create === true);
      this.opened.set(url, opening);
    }
    return opening;
  }

  /**
   * `NOT_FOUND` when the `file:` or `sqlite:` store at `url` does not exist, as `store()` checks it:
   * for a command that opens its store another way (`verify`, `repair`).
   */
  async requireStore(url: string = this.storeUrl): Promise<void> {
    await this.opening(url, () => checkLocalStore(url, false));
  }

  /** A progress indicator on stderr for long work (silent when piped or with `--quiet`). */
  progress(label: string, total?: number): Progress {
    return startProgress(this.io, {
      label,
      quiet: this.options.quiet === true,
      ...(total === undefined ? {} : { total }),
    });
  }

  /** Closes every store this run opened. */
  async close(): Promise<void> {
    const stores = await Promise.allSettled([...this.opened.values()]);
    this.opened.clear();
    await Promise.allSettled(
      stores.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)),
    );
  }

  /** The per-user key directory (`--user-keys` or `CHATSTATE_USER_KEYS`), when one is given. */
  userKeys(): UserKeyStore | undefined {
    const fromEnv = this.io.env.CHATSTATE_USER_KEYS;
    const dir = this.options.userKeys ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
    return dir === undefined ? undefined : userKeyDirectory(dir);
  }

  private async open(url: string, create: boolean): Promise<SessionStore> {
    const encryption = await this.encryptionKey();
    const userKeys = this.userKeys();
    return this.opening(url, async () => {
      const { created } = await checkLocalStore(url, create);
      const store = await openStore(url, {
        ...(encryption === undefined ? {} : { encryption }),
        ...(userKeys === undefined ? {} : { userKeys }),
      });
      if (created !== undefined) this.output.note(`new store at ${created} (it did not exist)`);
      return store;
    });
  }

  /** Runs `work` (opening the store at `url`); its error names the store, password hidden, and keeps its code. */
  private async opening<T>(url: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeOpenError(url, error);
    }
  }
}
