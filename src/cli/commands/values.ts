/**
 * `chatstate values get|set|unset|list`: active memory's scoped values. The `session` scope is a
 * session's variables; `user`, `agent` (an agent's memory about a user) and `app` are the store's
 * values. Reads and writes go through a session handle, so keys and values are checked as an
 * agent's are.
 * @module
 */
import { type Command, Option } from 'commander';
import { createSessionHandle } from '../../active-memory/session-handle.js';
import { knowledgeSessionId } from '../../active-memory/knowledge.js';
import type { SessionHandle } from '../../active-memory/types.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { JsonValue } from '../../message/schema.js';
import type { SessionStore, ValueOwner } from '../../store/session-store-types.js';
import { action, defineCommand, examples } from '../command.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { parseJson } from '../input.js';

type ValueScope = 'session' | 'user' | 'agent' | 'app';

interface ScopeOptions {
  readonly scope: ValueScope;
  readonly session?: string;
  readonly user?: string;
  readonly agent?: string;
}

interface SetOptions extends ScopeOptions {
  readonly string?: boolean;
}

function need(options: ScopeOptions, flag: 'session' | 'user' | 'agent'): string {
  const value = options[flag];
  if (value === undefined)
    throw new InvalidInputError('INVALID_ARGUMENT', `--scope ${options.scope} needs --${flag} ID`);
  return value;
}

/** A handle whose scopes are the ones the options name; `NOT_FOUND` for a session scope of a session that does not exist. */
async function handleFor(store: SessionStore, options: ScopeOptions): Promise<SessionHandle> {
  if (options.scope === 'session' && (await store.summary(need(options, 'session'))) === undefined) {
    throw new NotFoundError(`No session ${JSON.stringify(options.session)} in store ${store.name}`, {
      details: { sessionId: options.session },
    });
  }
  switch (options.scope) {
    case 'session':
      return createSessionHandle({ store, sessionId: need(options, 'session') });
    case 'user': {
      const userId = need(options, 'user');
      return createSessionHandle({ store, sessionId: knowledgeSessionId(userId), userId });
    }
    case 'agent': {
      const userId = need(options, 'user');
      return createSessionHandle({
        store,
        sessionId: knowledgeSessionId(userId),
        userId,
        agentId: need(options, 'agent'),
      });
    }
    case 'app':
      // The app scope needs no owner: any valid session id carries the handle.
      return createSessionHandle({ store, sessionId: 'chatstate-cli' });
    default:
      return options.scope satisfies never;
  }
}

function ownerOf(options: ScopeOptions): ValueOwner {
  switch (options.scope) {
    case 'user':
      return { scope: 'user', userId: need(options, 'user') };
    case 'agent':
      return { scope: 'agent', agentId: need(options, 'agent'), userId: need(options, 'user') };
    case 'app':
      return { scope: 'app' };
    case 'session':
      throw new Error('values: the session scope is a session’s variables, not an owner of values');
    default:
      return options.scope satisfies never;
  }
}

function scoped(command: Command): Command {
  return command
    .addOption(
      new Option('--scope <scope>', 'whose value').choices(['session', 'user', 'agent', 'app']).default('user'),
    )
    .option('--session <id>', 'the session (session scope)')
    .option('--user <id>', 'the user (user and agent scopes)')
    .option('--agent <id>', 'the agent (agent scope)');
}

async function allValues(context: CliContext, options: ScopeOptions): Promise<Record<string, JsonValue>> {
  const store = await context.store();
  if (options.scope !== 'session') return store.values.getAll(ownerOf(options));
  const session = await store.get(need(options, 'session'));
  if (session === undefined)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `No session ${JSON.stringify(options.session)} in store ${store.name}`,
    );
  return { ...session.variables };
}

/** `values`. */
export const values = defineCommand('values', (command) => {
  command
    .summary('get, set and list scoped active-memory values')
    .description(
      "Active memory's values: --scope user (one user, across sessions; --user), agent (an agent's memory about a user; --agent and --user),\n" +
        "app (shared by the application) or session (a session's variables; --session).",
    )
    .addHelpText(
      'after',
      examples(
        'values list --scope user --user alice',
        'values get theme --scope user --user alice',
        'values set limits \'{"daily":5}\' --scope app',
      ),
    );
  scoped(command.command('get'))
    .description('print the JSON value of KEY (exit 1 when it has none)')
    .argument('<key>', 'the key')
    .addHelpText('after', examples('values get theme --scope user --user alice'))
    .action(
      action<ScopeOptions>(async (context, args, options) => {
        const value = await (
          await handleFor(await context.store(), options)
        ).get(args[0] as string, { scope: options.scope });
        if (value === undefined) {
          context.output.note(`no value ${args[0]}`);
          return EXIT.problems;
        }
        await context.output.line(JSON.stringify(value));
      }),
    );
  scoped(command.command('set'))
    .description('set KEY to VALUE: JSON when it parses as JSON (a number, an object…), else the text as a string')
    .argument('<key>', 'the key')
    .argument('<value>', 'the value (JSON, or text)')
    .option('--string', 'store VALUE as a string even when it parses as JSON')
    .option('--json-only', 'refuse a VALUE that is not JSON (with its position)')
    .addHelpText(
      'after',
      examples('values set theme dark --scope user --user alice', 'values set retries 3 --scope app'),
    )
    .action(
      action<SetOptions & { readonly jsonOnly?: boolean }>(async (context, args, options) => {
        const [key, text] = args as [string, string];
        let value: JsonValue;
        if (options.string === true) value = text;
        else if (options.jsonOnly === true) value = parseJson(text, 'VALUE') as JsonValue;
        else {
          try {
            value = JSON.parse(text) as JsonValue;
          } catch {
            value = text;
          }
        }
        const store = await context.store(context.storeUrl, { create: true });
        await (await handleFor(store, options)).store(key, value, { scope: options.scope });
        context.output.note(`set ${key} (${options.scope} scope)`);
      }),
    );
  scoped(command.command('unset'))
    .description('delete KEY')
    .argument('<key>', 'the key')
    .addHelpText('after', examples('values unset theme --scope user --user alice'))
    .action(
      action<ScopeOptions>(async (context, args, options) => {
        await (
          await handleFor(await context.store(), options)
        ).store(args[0] as string, undefined, { scope: options.scope });
        context.output.note(`unset ${args[0]} (${options.scope} scope)`);
      }),
    );
  scoped(command.command('list'))
    .description('every key and value of the scope, keys ascending')
    .addHelpText('after', examples('values list --scope agent --agent planner --user alice --json'))
    .action(
      action<ScopeOptions>(async (context, _args, options) => {
        const all = await allValues(context, options);
        const keys = Object.keys(all).sort();
        if (context.output.json) {
          for (const key of keys) await context.output.record({ key, value: all[key] });
          return;
        }
        for (const key of keys) await context.output.line(`${key}\t${JSON.stringify(all[key])}`);
        if (keys.length === 0) context.output.note('no values');
      }),
    );
});
