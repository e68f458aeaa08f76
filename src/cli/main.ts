/**
 * The `chatstate` command line: operate any store (list, show, stats, compact, fork, delete,
 * search, values, export, import, verify, repair, migrate) and check provider histories (format,
 * validate). Commands are modules registered in `commands/index.ts`; commander parses arguments
 * and writes the help.
 * @module
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { attachRun, type RunState } from './command.js';
import { COMMANDS } from './commands/index.js';
import { DEFAULT_STORE } from './context.js';
import { EXIT, errorReport, exitCodeOf } from './exit-codes.js';
import { processIo, type CliIo } from './io.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const FOOTER = `
Stores: memory:, file:DIR, sqlite:PATH, postgres://…, redis://…, redis+cluster://HOST:PORT,…, http(s)://HOST:PORT (a chatstate server; key in CHATSTATE_API_KEY), and any scheme added with registerStore.
Encryption: the key comes from CHATSTATE_KEY or --key-file PATH (a secret of 16+ characters, or a JSON key ring).
Exit codes: 0 ok, 1 problems found or the operation failed, 2 usage error.
Run "chatstate help COMMAND" for a command's options and examples.
`;

/** The `chatstate` program for one run: global options, every registered command, errors thrown instead of exiting. */
export function createProgram(state: RunState): Command {
  const program = new Command('chatstate');
  attachRun(program, state);
  program
    .description('Inspect, move, check and repair chatstate conversations in any store.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--store <url>', `the store (default: $CHATSTATE_STORE, then ${DEFAULT_STORE})`))
    .option('--key-file <path>', 'file holding the encryption key (else $CHATSTATE_KEY)')
    .option(
      '--user-keys <dir>',
      "directory of per-user keys, apart from the store (else $CHATSTATE_USER_KEYS): each user's records are sealed with their own key, which forget-user destroys; needs the encryption key",
    )
    .option('--json', 'JSON output (JSON lines for listings)')
    .option('-q, --quiet', 'no progress bars or notes on stderr')
    .option('--debug', 'print stacks with errors')
    .addHelpText('after', FOOTER)
    .configureHelp({
      showGlobalOptions: true,
      sortSubcommands: false,
      // Descriptions are written as source lines: a single newline joins, a blank line starts a
      // paragraph, and commander wraps each paragraph to the terminal's width.
      commandDescription: (command) => reflow(command.description()),
    })
    // Inherited by every command added below: errors are thrown and reported by `run`.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => state.io.stdout.write(text),
      writeErr: (text) => state.io.stderr.write(text),
      outputError: () => undefined,
    });
  for (const definition of COMMANDS) definition.configure(program.command(definition.name));
  return program;
}

/** `text` with its single newlines joined into spaces (blank lines kept as paragraph breaks). */
export function reflow(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' ').trim())
    .join('\n\n');
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code; errors are reported on stderr. */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const state: RunState = { io, exitCode: EXIT.ok };
  const debug = argv.includes('--debug');
  try {
    await createProgram(state).parseAsync([...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    const code = exitCodeOf(error);
    if (error instanceof CommanderError) {
      // Help and version were printed by commander; help shown for a missing command is a usage error.
      if (code === EXIT.ok || error.code === 'commander.help') return code;
      io.stderr.write(`${errorReport(error, debug)}\n${usageHint(argv)}`);
      return code;
    }
    io.stderr.write(`${errorReport(error, debug)}\n`);
    return code;
  }
}

function usageHint(argv: readonly string[]): string {
  const name = argv.find((arg) => !arg.startsWith('-') && COMMANDS.some((command) => command.name === arg));
  return `(see "chatstate ${name === undefined ? '' : `${name} `}--help")\n`;
}
