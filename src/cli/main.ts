/**
 * The `chatstate` command line: inspect saved sessions and provider histories.
 * Later versions add store-backed commands (list, show, compact, export by session id).
 * @module
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ChatstateError, NotFoundError } from '../errors.js';
import { formats, validate } from '../formats/index.js';
import { PROVIDERS, type ProviderName } from '../message/schema.js';
import { Session } from '../session/session.js';
import { tokens } from '../tokens/index.js';

const USAGE = `Usage: chatstate <command> [options]

Commands:
  show <session.json>                 print the history as [ROLE] lines
  stats <session.json>                print message, token and tool statistics (JSON)
  format <provider> <session.json>    print the history in a provider's wire format (JSON)
  validate <provider> <wire.json>     list a wire history's structural problems

Providers: ${PROVIDERS.join(', ')}

Options:
  --counter <estimate|o200k_base|cl100k_base>   token counter for stats (default: estimate)
  --max-chars <n>                               longest text shown per line by show (default: 500)
  -h, --help                                    show this help
  -v, --version                                 print the version`;

function fail(message: string): never {
  throw new ChatstateError('INVALID_ARGUMENT', message);
}

function provider(value: string | undefined): ProviderName {
  if (value === undefined || !(PROVIDERS as readonly string[]).includes(value)) {
    fail(`Expected a provider (${PROVIDERS.join(', ')}), got ${JSON.stringify(value ?? '')}`);
  }
  return value as ProviderName;
}

async function readJson(path: string | undefined): Promise<unknown> {
  if (path === undefined) fail('Missing file argument');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new NotFoundError(
      `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ChatstateError('INVALID_ARGUMENT', `${path} is not JSON`, { cause: error });
  }
}

const counters = { estimate: tokens.estimate, o200k_base: tokens.o200kBase, cl100k_base: tokens.cl100kBase } as const;

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: readonly string[], out: (line: string) => void = console.log): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        counter: { type: 'string', default: 'estimate' },
        'max-chars': { type: 'string', default: '500' },
      },
    });
  } catch (error) {
    throw new ChatstateError('INVALID_ARGUMENT', (error as Error).message, { cause: error });
  }
  const { values, positionals } = parsed;
  if (values.version === true) {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    out(pkg.version);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (values.help === true || command === undefined) {
    out(USAGE);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  switch (command) {
    case 'show': {
      const maxChars = Number(values['max-chars']);
      if (!Number.isInteger(maxChars) || maxChars < 2) fail('--max-chars must be an integer ≥ 2');
      out(Session.fromJSON(await readJson(rest[0])).formatHistory({ maxChars }));
      return 0;
    }
    case 'stats': {
      // An own-property check: "constructor" or "toString" must not resolve to Object's members.
      const name = values.counter as keyof typeof counters;
      const counter = Object.hasOwn(counters, name) ? counters[name] : undefined;
      if (counter === undefined) fail(`Unknown counter ${JSON.stringify(values.counter)}`);
      out(JSON.stringify(Session.fromJSON(await readJson(rest[0])).stats(counter), null, 2));
      return 0;
    }
    case 'format': {
      const name = provider(rest[0]);
      out(JSON.stringify(formats[name].to(Session.fromJSON(await readJson(rest[1])).messages), null, 2));
      return 0;
    }
    case 'validate': {
      const problems = validate(provider(rest[0]), await readJson(rest[1]));
      out(problems.length === 0 ? 'valid' : problems.map((p) => `${p.path}: ${p.code}: ${p.message}`).join('\n'));
      return problems.length === 0 ? 0 : 1;
    }
    default:
      fail(`Unknown command ${JSON.stringify(command)}; see --help`);
  }
}
