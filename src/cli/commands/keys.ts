/**
 * `chatstate keys add|list|remove --file FILE`: the server's API key file. A new key's secret is
 * printed once; the file keeps only its hash, written atomically and readable by its owner only.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { Option } from 'commander';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { KeyRing, newKey, type KeyEntry, type Role } from '../../server/auth/api-keys.js';
import { action, defineCommand, examples } from '../command.js';

interface KeysOptions {
  readonly file: string;
  readonly tenant?: string;
  readonly role?: Role;
  readonly user?: string;
  readonly id?: string;
}

/** The entries of key file `path` (none when it does not exist yet), checked. */
async function readEntries(path: string): Promise<KeyEntry[]> {
  try {
    await readFile(path);
  } catch {
    return [];
  }
  await KeyRing.fromFile(path);
  return (JSON.parse(await readFile(path, 'utf8')) as { keys: KeyEntry[] }).keys;
}

/** Writes `entries` to `path` atomically (a temporary file renamed over it), mode 0600. */
async function writeEntries(path: string, entries: readonly KeyEntry[]): Promise<void> {
  new KeyRing(entries);
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ keys: entries }, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** `keys`. */
export const keys = defineCommand('keys', (command) =>
  command
    .summary("manage the server's API keys")
    .description(
      'Manage the API key file of "chatstate serve --keys FILE". Each key maps to a tenant, a role (admin or member)\n' +
        'and optionally a user (the key then sees only that user’s sessions). "add" prints the new secret once:\n' +
        'the file keeps only its SHA-256.',
    )
    .argument('<action>', 'add, list or remove')
    .argument('[id]', 'the key id (remove)')
    .requiredOption('--file <path>', 'the key file')
    .option('--tenant <id>', 'add: the tenant (lowercase letters, digits, dashes)')
    .addOption(new Option('--role <role>', 'add: what the key may do').choices(['admin', 'member']).default('member'))
    .option('--user <id>', 'add: bind the key to this user')
    .option('--id <id>', 'add: the key id (default: a random one)')
    .addHelpText(
      'after',
      examples(
        'keys add --file keys.json --tenant acme --role admin',
        'keys add --file keys.json --tenant acme --user alice',
        'keys list --file keys.json',
        'keys remove key-1a2b3c4d --file keys.json',
      ),
    )
    .action(
      action<KeysOptions>(async (context, args, options) => {
        const [verb, id] = args as [string, string | undefined];
        const entries = await readEntries(options.file);
        switch (verb) {
          case 'add': {
            if (options.tenant === undefined)
              throw new InvalidInputError('INVALID_ARGUMENT', 'keys add needs --tenant');
            const made = newKey({
              tenant: options.tenant,
              role: options.role ?? 'member',
              ...(options.user === undefined ? {} : { userId: options.user }),
              ...(options.id === undefined ? {} : { id: options.id }),
            });
            await writeEntries(options.file, [...entries, made.entry]);
            if (context.output.json) await context.output.record({ ...made.entry, secret: made.secret });
            else {
              await context.output.line(made.secret);
              context.output.note(
                `added ${made.entry.id} (${made.entry.role} of ${made.entry.tenant}); the secret is shown only now`,
              );
            }
            return;
          }
          case 'list':
            for (const entry of entries) {
              if (context.output.json) await context.output.record(entry);
              else
                await context.output.line(
                  `${entry.id}  ${entry.tenant}  ${entry.role}${entry.userId === undefined ? '' : `  user ${entry.userId}`}`,
                );
            }
            return;
          case 'remove': {
            if (id === undefined) throw new InvalidInputError('INVALID_ARGUMENT', 'keys remove needs the key id');
            const kept = entries.filter((entry) => entry.id !== id);
            if (kept.length === entries.length) throw new NotFoundError(`No key ${id} in ${options.file}`);
            await writeEntries(options.file, kept);
            context.output.note(`removed ${id}`);
            return;
          }
          default:
            throw new InvalidInputError(
              'INVALID_ARGUMENT',
              `keys takes add, list or remove, not ${JSON.stringify(verb)}`,
            );
        }
      }),
    ),
);
