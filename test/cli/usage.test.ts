/**
 * The `chatstate` command's surface, run as a real process: help and examples, usage errors (exit
 * 2), one-line errors with their code, the session-file forms of show/stats/format/validate, stdin,
 * the default store, encryption keys, and the cases the issue found broken.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { ROOT, ensureBuilt, runCli, runCliProcess } from './cli-process.js';
import { seed, tripMessages } from './seed.js';

let dir = '';
let sessionFile = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-usage-'));
  sessionFile = join(dir, 'session.json');
  await writeFile(sessionFile, JSON.stringify(Session.create({ id: 'cli-1' }).append(...tripMessages())));
  await ensureBuilt();
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const ONE_ERROR_LINE = /^error [A-Z_]+: [^\n]+\n/;

describe('help', () => {
  it('lists every command, with the store, key and exit-code notes', async () => {
    const help = await runCli(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const command of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${command.name}\\b`, 'm'));
    expect(help.stdout).toContain('Exit codes: 0 ok, 1 problems found or the operation failed, 2 usage error.');
    expect(help.stdout).toContain('--key-file <path>');
  });

  it('shows an example in the help of every command, by --help and by "help CMD"', async () => {
    for (const command of COMMANDS) {
      const help = await runCli([command.name, '--help']);
      expect(help.code, command.name).toBe(0);
      expect(help.stdout, command.name).toMatch(new RegExp(`Examples:\\n  \\$ chatstate ${command.name}\\b`));
      expect(help.stdout, command.name).toContain('--store <url>');
    }
    const viaHelp = await runCli(['help', 'show']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe((await runCli(['show', '--help'])).stdout);
    expect((await runCli(['values', 'set', '--help'])).stdout).toContain('$ chatstate values set theme dark');
  });

  it('prints the version', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

describe('usage errors exit 2 with one error line', () => {
  it('an unknown command, no command, an extra argument, an unknown option', async () => {
    const unknown = await runCli(['nope']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(`error INVALID_ARGUMENT: unknown command 'nope'\n(see "chatstate --help")\n`);

    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage: chatstate/);

    const extra = await runCli(['validate', 'openaiChat', sessionFile, sessionFile]);
    expect(extra).toMatchObject({ code: 2, stdout: '' });
    expect(extra.stderr).toMatch(
      /^error INVALID_ARGUMENT: too many arguments for 'validate'\. Expected 2 arguments but got 3\.\n/,
    );
    expect((await runCli(['show', 'a', 'b'])).code).toBe(2);
    expect((await runCli(['purge-expired', 'now'])).code).toBe(2);

    const option = await runCli(['show', sessionFile, '--bogus']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(
      /^error INVALID_ARGUMENT: unknown option '--bogus'\n\(see "chatstate show --help"\)\n$/,
    );
  });

  it('a bad option value names the option and what it takes', async () => {
    const limit = await runCli(['list', '--limit', 'x', '--store', 'memory:']);
    expect(limit).toMatchObject({ code: 2, stdout: '' });
    expect(limit.stderr).toMatch(
      /^error INVALID_ARGUMENT: option '--limit <n>' argument 'x' is invalid\. expected an integer from 1 to 2147483647, got "x"\n/,
    );
    expect((await runCli(['list', '--since', 'yesterday', '--store', 'memory:'])).stderr).toContain(
      'expected an ISO-8601 date',
    );
    expect((await runCli(['list', '--sort', 'size', '--store', 'memory:'])).code).toBe(2);
    expect((await runCli(['show', sessionFile, '--range', '5..1'])).stderr).toContain('the range 5..1 is empty');
    expect((await runCli(['show', sessionFile, '--tail', '0'])).code).toBe(2);
    expect((await runCli(['show', sessionFile, '--format', 'martian'])).stderr).toContain(
      'unknown provider "martian"; expected one of openaiChat, openaiResponses, anthropic, gemini, aiSdk',
    );
    expect((await runCli(['compact', 'x', '--store', 'memory:'])).stderr).toMatch(
      /required option '--strategy <name>' not specified/,
    );
    expect((await runCli(['compact', 'x', '--strategy', 'slidingWindow', '--store', 'memory:'])).stderr).toBe(
      'error INVALID_ARGUMENT: --strategy slidingWindow needs --turns N\n',
    );
    expect((await runCli(['stats', '--store', 'memory:'])).stderr).toBe(
      'error INVALID_ARGUMENT: stats takes a session or --all (one of them)\n',
    );
  });

  it('an unknown counter lists the valid ones (Object members too)', async () => {
    for (const counter of ['words', 'constructor', '__proto__']) {
      const result = await runCli(['stats', sessionFile, '--counter', counter]);
      expect(result.code, counter).toBe(2);
      expect(result.stderr, counter).toContain('Allowed choices are estimate, o200k_base, cl100k_base.');
    }
  });

  it('a store URL of no registered scheme lists the registered ones; a path suggests its file: URL', async () => {
    const scheme = await runCli(['list', '--store', 'nosuch://x']);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(
      /^error INVALID_ARGUMENT: Cannot open store "nosuch:\/\/x": unknown scheme "nosuch:"; registered: file:, http:, https:, memory:, postgres:, postgresql:, redis\+cluster:, redis:, rediss\+cluster:, rediss:, sqlite:/,
    );
    const path = await runCli(['list', '--store', './sessions']);
    expect(path.stderr).toContain('did you mean "file:./sessions"?');
  });
});

describe('errors of the operation exit 1 with one line, and a stack with --debug', () => {
  it('an unreadable key file, and a key that is too short', async () => {
    await mkdir(join(dir, 'keyed'), { recursive: true });
    const missing = await runCli([
      'list',
      '--store',
      `file:${join(dir, 'keyed')}`,
      '--key-file',
      join(dir, 'no-such-key'),
    ]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe(
      `error NOT_FOUND: Cannot read the key file ${JSON.stringify(join(dir, 'no-such-key'))}: ENOENT\n`,
    );
    const unreadable = await runCli(['list', '--store', `file:${join(dir, 'keyed')}`, '--key-file', dir]);
    expect(unreadable.stderr).toMatch(/^error NOT_FOUND: Cannot read the key file .*: EISDIR\n$/);
    const short = await runCli(['list', '--store', `file:${join(dir, 'keyed')}`], {
      env: { CHATSTATE_KEY: 'tiny-k3y' },
    });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(ONE_ERROR_LINE);
    expect(short.stderr).toContain('shorter than 16 characters');
    expect(short.stderr).not.toContain('tiny-k3y');
  });

  it('a store that cannot be reached names it without its password', async () => {
    const result = await runCli(['list', '--store', 'postgres://user:hunter2@127.0.0.1:1/none']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(ONE_ERROR_LINE);
    expect(result.stderr).not.toContain('hunter2');
    // The store's own class comes through (retryable), not a plain ChatstateError.
    const debug = await runCli(['list', '--store', 'postgres://user:hunter2@127.0.0.1:1/none', '--debug']);
    expect(debug.stderr).toMatch(
      /^error UNAVAILABLE: Cannot open store "postgres:\/\/user:\*\*\*@127\.0\.0\.1:1\/none": [^\n]*\nUnavailableError: Cannot open store /,
    );
    expect(debug.stderr).not.toContain('hunter2');
  });

  it('--debug adds the stack', async () => {
    await mkdir(join(dir, 'empty-store'), { recursive: true });
    const store = `file:${join(dir, 'empty-store')}`;
    const plain = await runCli(['show', 'nope', '--store', store]);
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    const debug = await runCli(['show', 'nope', '--store', store, '--debug']);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^error NOT_FOUND: No session "nope"[^\n]*\nNotFoundError: No session[^\n]*\n\s+at /);
  });
});

describe('session files, stdin and wire histories', () => {
  it('show, stats and format read a session JSON file or stdin (-)', async () => {
    const shown = await runCli(['show', sessionFile]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('→ get_weather {"city":"Lisbon"}');
    const fromStdin = await runCli(['show', '-'], { input: await readFile(sessionFile, 'utf8') });
    expect(fromStdin.stdout).toBe(shown.stdout);

    const stats = JSON.parse(
      (await runCli(['stats', sessionFile, '--json', '--counter', 'o200k_base'])).stdout,
    ) as Record<string, unknown>;
    expect(stats).toMatchObject({
      id: 'cli-1',
      messages: 6,
      toolCalls: { byName: { get_weather: 1 } },
      tokens: { counter: 'o200k_base' },
    });
    expect(stats).not.toHaveProperty('chain');

    const formatted = await runCli(['format', 'anthropic', sessionFile]);
    expect(formatted).toMatchObject({ code: 0, stderr: '' });
    const body = JSON.parse(formatted.stdout) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['messages']);
  });

  it('format prints only the request body and its warnings on stderr', async () => {
    const orphan = join(dir, 'orphan.json');
    await writeFile(
      orphan,
      JSON.stringify(
        Session.create({ id: 'orphan' }).append(
          Message.user('hi'),
          Message.tool('ghost-call', 'a result nobody asked for'),
          Message.assistant('ok'),
        ),
      ),
    );
    const result = await runCli(['format', 'openaiChat', orphan]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('messages');
    expect(result.stdout).not.toContain('warnings');
    expect(result.stderr).toMatch(/^warning: orphan_tool_result: /);
  });

  it('validate takes a request body or a plain messages array, from a file or stdin', async () => {
    const good = '[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]';
    expect(await runCli(['validate', 'openaiChat', '-'], { input: good })).toEqual({
      code: 0,
      stdout: 'valid\n',
      stderr: '',
    });
    expect(await runCli(['validate', 'openaiChat', '-'], { input: `{"messages":${good}}` })).toMatchObject({
      code: 0,
      stdout: 'valid\n',
    });
    const bad = await runCli(['validate', 'anthropic', '-'], { input: '[{"role":"assistant","content":"first"}]' });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^messages\[0\]: first_not_user: /m);
    const json = await runCli(['validate', 'anthropic', '-', '--json'], {
      input: '[{"role":"assistant","content":"first"}]',
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, problems: [{ code: 'first_not_user' }] });
  });

  it('bad JSON gives its line and column', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{\n  "messages": [1,]\n}\n');
    const result = await runCli(['validate', 'openaiChat', file]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(`error INVALID_ARGUMENT: ${file}:2:18: not JSON (unexpected "]")\n`);
    expect((await runCli(['show', '-'], { input: '{"id": "x",' })).stderr).toBe(
      'error INVALID_ARGUMENT: stdin:1:12: not JSON (unexpected end of input)\n',
    );
    expect((await runCli(['format', 'gemini', '-'], { input: '' })).stderr).toBe(
      'error INVALID_ARGUMENT: stdin:1:1: not JSON (unexpected end of input)\n',
    );
  });

  it('a file that is not a session is INVALID_SESSION', async () => {
    const file = join(dir, 'not-a-session.json');
    await writeFile(file, '{"formatVersion":1,"id":"../../etc"}');
    const result = await runCli(['show', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error INVALID_SESSION: /);
  });
});

describe('stores by default, by environment, by path', () => {
  it('opens file:./.chatstate by default, CHATSTATE_STORE when set, --store above both', async () => {
    const cwd = await mkdtemp(join(dir, 'cwd-'));
    await seed(`file:${join(cwd, '.chatstate')}`);
    const byDefault = await runCli(['show', 'trip', '--tail', '1'], { cwd });
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toContain('window seat');
    const other = `file:${join(cwd, 'other')}`;
    expect(await runCli(['show', 'trip'], { cwd, env: { CHATSTATE_STORE: other } })).toMatchObject({ code: 1 });
    expect(
      await runCli(['show', 'trip', '--store', 'file:./.chatstate'], { cwd, env: { CHATSTATE_STORE: other } }),
    ).toMatchObject({ code: 0 });
  });

  it('reads a file-store session directory, and says how to open a store directory or URL (the issue)', async () => {
    const store = join(dir, 'example');
    await seed(`file:${store}`);
    const direct = await runCli(['show', join(store, 'sessions', 'trip')]);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toMatch(/^session trip /);
    expect((await runCli(['stats', join(store, 'sessions', 'chain-b'), '--json'])).stdout).toContain('"chain-a"');

    const storeDir = await runCli(['show', store]);
    expect(storeDir).toMatchObject({ code: 2, stdout: '' });
    expect(storeDir.stderr).toBe(
      `error INVALID_ARGUMENT: ${store} is a file store, not a session: pass it with --store (chatstate show --store file:${store} ID)\n`,
    );
    const url = await runCli(['stats', `file:${store}`]);
    expect(url).toMatchObject({ code: 2, stdout: '' });
    expect(url.stderr).toBe(
      `error INVALID_ARGUMENT: "file:${store}" is a store URL, not a session: pass it with --store (chatstate stats --store file:${store} ID)\n`,
    );
    expect((await runCli(['stats', '--all', '--store', `file:${store}`, '--json'])).code).toBe(0);
    const plainDir = await runCli(['show', dir]);
    expect(plainDir.code).toBe(2);
    expect(plainDir.stderr).toContain('is a directory: expected a session id');
  });

  it('opens an encrypted store with CHATSTATE_KEY or --key-file, never without the key', async () => {
    const key = 'a-long-enough-test-secret-0123456789';
    const url = `file:${join(dir, 'encrypted')}`;
    await seed(url, key);
    const keyFile = join(dir, 'store.key');
    await writeFile(keyFile, `${key}\n`);
    const byEnv = await runCli(['show', 'trip', '--store', url], { env: { CHATSTATE_KEY: key } });
    expect(byEnv.code).toBe(0);
    expect(byEnv.stdout).toContain('window seat');
    expect((await runCli(['show', 'trip', '--store', url, '--key-file', keyFile])).stdout).toBe(byEnv.stdout);
    const ring = join(dir, 'ring.key');
    await writeFile(
      ring,
      JSON.stringify({ current: 'k2', keys: { default: key, k2: 'another-long-enough-secret-abcdef' } }),
    );
    expect((await runCli(['show', 'trip', '--store', url, '--key-file', ring])).code).toBe(0);
    const without = await runCli(['show', 'trip', '--store', url]);
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(ONE_ERROR_LINE);
    expect(without.stdout).toBe('');
    const wrong = await runCli(['show', 'trip', '--store', url], {
      env: { CHATSTATE_KEY: 'a-different-secret-of-enough-length' },
    });
    expect(wrong.code).toBe(1);
    // The session's key check tells a wrong key from a damaged record.
    expect(wrong.stderr).toMatch(/^error WRONG_KEY: [^\n]+\n$/);
  });
});

describe('the built bin, as a process of its own', () => {
  it('exits with the code run() gives: 0, 1 for a failed operation, 2 for a usage error', async () => {
    expect(await runCliProcess(['--version'])).toMatchObject({ code: 0 });
    const missing = await runCliProcess(['show', 'no-such-session', '--store', `file:${join(dir, 'bin-store')}`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(ONE_ERROR_LINE);
    const usage = await runCliProcess(['show', 'a', 'b']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(ONE_ERROR_LINE);
  });

  it('exits 0 without an error when its reader closes the pipe early (chatstate show | head -c 1)', async () => {
    // Far more than a pipe holds, so the bin is still writing when head has gone.
    const big = join(dir, 'big.json');
    const lines = Array.from({ length: 400 }, (_, n) => Message.user(`line ${n} ${'x'.repeat(2_000)}`));
    await writeFile(big, JSON.stringify(Session.create({ id: 'big' }).append(...lines)));
    const bin = join(ROOT, 'dist', 'cli', 'bin.js');
    const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} show ${JSON.stringify(big)} | head -c 1 >/dev/null; echo "status=\${PIPESTATUS[0]}"`;
    const child = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(child.stdout).toBe('status=0\n');
    expect(child.stderr).toBe('');
  });
});
