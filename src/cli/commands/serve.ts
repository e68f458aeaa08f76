/**
 * `chatstate serve`: the HTTP API over the store, with the agents of `--agents FILE` running turns,
 * until SIGINT or SIGTERM: then requests in flight (turns included) finish within `--grace-ms`,
 * turns still running are aborted (a second signal aborts them at once), and the store closes.
 * Without `--keys` it serves the whole store, on loopback only.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { InvalidInputError, errorMessage } from '../../errors.js';
import type * as ServerIndex from '../../server/index.js';
import { MAX_OPTION_MS } from '../../bounds.js';
import { integerOption } from '../arguments.js';
import { action, defineCommand, examples } from '../command.js';

/** The `chatstate/server` module (its types only: the module itself loads when `serve` runs). */
type ServerModule = typeof ServerIndex;

interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly keys?: string;
  readonly agents?: string;
  readonly graceMs?: number;
  readonly maxBodyBytes?: number;
  readonly eventPollMs?: number;
  readonly corsOrigin?: string[];
  readonly publicOrigin?: string[];
  readonly metricsKey?: string;
  readonly prices?: string;
  readonly contextWindow?: number;
  readonly web: boolean;
}

/** The prices in JSON file `path`, checked (`INVALID_ARGUMENT` naming the problem). */
async function readPrices(server: ServerModule, path: string): Promise<ReturnType<ServerModule['checkPrices']>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError('INVALID_ARGUMENT', `Cannot read the prices file ${path}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('INVALID_ARGUMENT', `The prices file ${path} is not JSON`, { cause: error });
  }
  return server.checkPrices(value);
}

/** The server module, or `MISSING_DEPENDENCY` naming the packages it needs. */
async function loadServer(): Promise<ServerModule> {
  try {
    return await import('../../server/index.js');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new InvalidInputError(
        'MISSING_DEPENDENCY',
        'chatstate serve needs the server packages: npm install hono @hono/node-server @hono/zod-openapi',
        { cause: error, details: { packages: ['hono', '@hono/node-server', '@hono/zod-openapi'] } },
      );
    }
    throw error;
  }
}

/** Resolves at the next SIGINT or SIGTERM (the process then no longer dies of it). */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Closes `running` within `graceMs`; a second SIGINT or SIGTERM meanwhile ends the grace period at once. */
async function closeGracefully(
  running: ServerIndex.RunningServer,
  graceMs: number,
  note: (text: string) => void,
): Promise<void> {
  let finished = false;
  const closed = running.close(graceMs).finally(() => {
    finished = true;
  });
  void stopSignal().then((signal) => {
    if (finished) return;
    note(`${signal} again: aborting the turns in flight`);
    void running.close(0);
  });
  await closed;
}

/** `serve`. */
export const serve = defineCommand('serve', (command) =>
  command
    .summary('serve the HTTP API over the store')
    .description(
      'Serve the HTTP API (sessions, messages, values; OpenAPI at /openapi.json) over the store.\n' +
        'With --keys FILE (see "chatstate keys"), every request needs a key and sees only its tenant.\n' +
        'Without keys it serves the whole store and listens on loopback only. State blobs (/state/*) are signed\n' +
        'with CHATSTATE_STATE_KEY (16 characters or more; a subkey per tenant). Browsers log in with a key at\n' +
        'POST /auth/session and get an HttpOnly cookie, signed with CHATSTATE_SESSION_SECRET (16 characters or\n' +
        'more; give every server the same one) or else a random secret of this process. CORS is off unless\n' +
        '--cors-origin names the origins allowed. The web session browser is at / (log in with a key; no login\n' +
        'without keys).\n\n' +
        "With --agents FILE, POST /sessions/{id}/turns runs agent turns: the file names each agent's model\n" +
        '(openaiChat, openaiResponses, anthropic or aiSdk) and the environment variables that hold its API key\n' +
        'and base URL (default OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL).\n\n' +
        'SIGINT or SIGTERM stop it: new requests get 503, requests in flight finish (turns within --grace-ms,\n' +
        'then they are aborted and store nothing; a second signal aborts them at once), then the store closes.',
    )
    .option('--port <n>', 'port to listen on (0: any free port)', integerOption(0, 65_535), 3000)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--keys <file>', 'the API key file (tenants, roles, users)')
    .option('--agents <file>', 'the agents turns run (POST /sessions/{id}/turns): a .json file, or a .mjs module')
    .option(
      '--grace-ms <n>',
      'on SIGINT/SIGTERM, how long requests in flight may finish before turns are aborted (default 25000)',
      integerOption(0, MAX_OPTION_MS),
    )
    .option('--max-body-bytes <n>', 'largest request body (default 8 MiB)', integerOption(1))
    .option(
      '--event-poll-ms <n>',
      'how often event streams poll a store without a shared change feed (default 1000; Postgres and Redis wake them on their feed and poll every 30 s)',
      integerOption(10, MAX_OPTION_MS),
    )
    .option('--cors-origin <origin...>', 'origins whose pages may call the API (CORS; default: none)')
    .option(
      '--public-origin <origin...>',
      "origins this server's pages are served from through a proxy (https://chat.example.com for one that terminates TLS): browser-session writes must come from one of them or from the address the request reached",
    )
    .option(
      '--metrics-key <key>',
      '/metrics then needs this key (or an admin key) as Authorization: Bearer; CHATSTATE_METRICS_KEY keeps it out of the process list (default: /metrics is open)',
    )
    .option(
      '--prices <file>',
      'model prices per million tokens, as JSON: {"currency":"USD","models":{"gpt-4.1-mini":{"input":0.4,"output":1.6}}} ("*" prices any other model); session stats then show the cost',
    )
    .option(
      '--context-window <n>',
      'tokens of the context window token charts are drawn against (default 128000)',
      integerOption(1),
    )
    .option('--no-web', 'do not serve the web session browser at /')
    .addHelpText(
      'after',
      examples(
        'serve --store file:./.chatstate',
        'serve --store postgres://db/chat --keys keys.json --host 0.0.0.0 --port 8080',
        'serve --store file:./.chatstate --agents agents.json --grace-ms 20000',
        'serve --prices prices.json --context-window 200000   # then open http://127.0.0.1:3000/',
      ),
    )
    .action(
      action<ServeOptions>(async (context, _args, options) => {
        const server = await loadServer();
        const keys = options.keys === undefined ? undefined : await server.KeyRing.fromFile(options.keys);
        // Loaded before the store opens: a config mistake stops the server before it touches anything.
        const agents =
          options.agents === undefined ? undefined : await server.loadAgents(options.agents, { env: context.io.env });
        const prices = options.prices === undefined ? undefined : await readPrices(server, options.prices);
        // A server writes: a new store is started (and said so) rather than refused.
        const store = await context.store(context.storeUrl, { create: true });
        const stateKey = context.io.env.CHATSTATE_STATE_KEY;
        const sessionSecret = context.io.env.CHATSTATE_SESSION_SECRET;
        // The flag wins; the environment keeps the key out of the process list.
        const metricsKey = options.metricsKey ?? context.io.env.CHATSTATE_METRICS_KEY;
        const running = await server.startServer({
          store,
          port: options.port,
          hostname: options.host,
          ...(keys === undefined ? {} : { keys }),
          ...(agents === undefined ? {} : agents),
          ...(stateKey === undefined || stateKey === '' ? {} : { stateKey }),
          ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
          ...(options.eventPollMs === undefined ? {} : { eventPollMs: options.eventPollMs }),
          ...(sessionSecret === undefined || sessionSecret === '' ? {} : { sessionSecret }),
          ...(options.corsOrigin === undefined ? {} : { corsOrigins: options.corsOrigin }),
          ...(options.publicOrigin === undefined ? {} : { publicOrigins: options.publicOrigin }),
          ...(metricsKey === undefined || metricsKey === '' ? {} : { metricsKey }),
          ...(prices === undefined ? {} : { prices }),
          ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
          ...(options.web ? {} : { web: false as const }),
        });
        const agentsNote =
          agents === undefined ? 'no agents' : `agents: ${agents.agents.map((agent) => agent.id).join(', ')}`;
        context.output.note(
          `serving ${store.name} on ${running.url} (${keys === undefined ? 'no keys: loopback only' : `${keys.size} keys`}; ${agentsNote})${options.web ? `; the session browser is at ${running.url}/` : ''}`,
        );
        const signal = await stopSignal();
        context.output.note(`${signal}: finishing requests in flight`);
        await closeGracefully(running, options.graceMs ?? server.DEFAULT_GRACE_MS, (text) => context.output.note(text));
        context.output.note('closed: closing the store');
      }),
    ),
);
