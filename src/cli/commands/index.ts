/**
 * The registry of `chatstate` commands: one module a command, one line here.
 *
 * To add a command:
 * 1. Write `src/cli/commands/NAME.ts` exporting `defineCommand('NAME', (command) => command…)`
 *    (see `../command.ts`): a `.summary()`, a `.description()`, its `.argument()`s and options
 *    (values checked with the parsers of `../arguments.ts`, so a bad value is a usage error, exit 2),
 *    `.addHelpText('after', examples('NAME …'))` for `--help`, and `.action(action(async (context,
 *    args, options) => { … }))`.
 * 2. In the handler, use `context.store()` (the `--store` store, opened with the encryption key and
 *    closed for you; a `file:` or `sqlite:` store that does not exist is refused, unless the command
 *    can start one and passes `{ create: true }`), `context.output` (tables, JSON lines with `--json`, notes, warnings) and
 *    `context.progress(label, total)` for long work. Throw a `ChatstateError` for failures (one line
 *    `error CODE: message` on stderr; exit 2 for `INVALID_ARGUMENT`/`INVALID_ID`, else 1); return
 *    `EXIT.problems` (1) when the command found problems.
 * 3. Add it to `COMMANDS` below (the order is the order of `chatstate --help`), and a test in
 *    `test/cli/` that runs the built bin.
 * @module
 */
import type { CliCommand } from '../command.js';
import { compact } from './compact.js';
import { remove } from './delete.js';
import { exportCommand } from './export.js';
import { fork } from './fork.js';
import { forgetUser } from './forget-user.js';
import { format } from './format.js';
import { importCommand } from './import.js';
import { keys } from './keys.js';
import { knowledge } from './knowledge.js';
import { list } from './list.js';
import { mcp } from './mcp.js';
import { migrate } from './migrate.js';
import { purgeExpired } from './purge-expired.js';
import { repair } from './repair.js';
import { search } from './search.js';
import { serve } from './serve.js';
import { show } from './show.js';
import { stats } from './stats.js';
import { validate } from './validate.js';
import { verify } from './verify.js';
import { values } from './values.js';
import { workingMemory } from './working-memory.js';

/** Every command, in the order `chatstate --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  list,
  show,
  stats,
  compact,
  fork,
  remove,
  purgeExpired,
  forgetUser,
  search,
  values,
  knowledge,
  workingMemory,
  exportCommand,
  importCommand,
  verify,
  repair,
  migrate,
  serve,
  mcp,
  keys,
  format,
  validate,
];
