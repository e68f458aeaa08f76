/**
 * The shell examples of the README and docs/ are commands a user will paste after `npm start`:
 * each block runs as written (bash, `set -e`), with `npx chatstate` the built bin, `npm start` the
 * example, and `curl` against a real `chatstate serve` over the store `npm start` left; every
 * command exits 0. The ids and versions the pages quote are the ones `npm start` leaves.
 */
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkLog } from '../../src/session/fork-log.js';
import { openStore } from '../../src/stores/open-store.js';
import { BIN, ROOT, ensureBuilt } from '../cli/cli-process.js';
import { startServe } from '../support/serve-process.js';
import { codeBlocks, docsSection } from '../support/readme-example.js';
import { environmentWithout, runCommand, type CommandRun } from '../support/run-command.js';

const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const EXAMPLE = join(ROOT, 'examples', 'agent-conversation.ts');

/** Directories made by this file, removed after it. */
const directories: string[] = [];
/** A directory `npm start`'s example ran in: its `.chatstate/` is what `npm start` leaves. */
let started = '';

async function directory(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'chatstate-docs-shell-'));
  directories.push(made);
  return made;
}

/** Runs a command in `cwd` without this run's CHATSTATE_* variables. */
function run(command: string, args: readonly string[], cwd: string): Promise<CommandRun> {
  return runCommand(command, args, { cwd, env: environmentWithout(['CHATSTATE_']) });
}

beforeAll(async () => {
  await ensureBuilt();
  started = await directory();
  const result = await run(process.execPath, [TSX, EXAMPLE], started);
  if (result.code !== 0) throw new Error(`npm start's example failed:\n${result.stdout}${result.stderr}`);
}, 600_000);
afterAll(async () => {
  for (const made of directories) await rm(made, { recursive: true, force: true });
});

/** A fresh working directory holding a copy of what `npm start` left (`.chatstate/`), or nothing. */
async function workingDirectory(withStore: boolean): Promise<string> {
  const cwd = await directory();
  if (withStore) await cp(join(started, '.chatstate'), join(cwd, '.chatstate'), { recursive: true });
  return cwd;
}

/** The `index`th ```sh block of the subsection of `page` whose heading starts with `heading`. */
async function shellBlock(page: string, heading: string, index = 0): Promise<string> {
  const block = codeBlocks(await docsSection(page, heading), 'sh')[index];
  if (block === undefined) throw new Error(`${page}: the subsection "${heading}" has no sh block #${index}`);
  return block;
}

/**
 * Runs `block` in `cwd` as bash with `set -e`: `npm start` runs the example, `npx chatstate` the
 * built bin (`npx chatstate serve` is the server `serving` already started: `localhost:3000` is
 * pointed at it).
 */
function bash(block: string, cwd: string, serving?: string): Promise<CommandRun> {
  const prelude = [
    'set -eE -o pipefail',
    // Which line failed, for the assertion message.
    `trap 'echo "command failed ($?): $BASH_COMMAND" >&2' ERR`,
    `npm() { if [ "$1" = start ]; then node ${JSON.stringify(TSX)} ${JSON.stringify(EXAMPLE)} > /dev/null; else return 64; fi; }`,
    `npx() { if [ "$1" = chatstate ] && [ "$2" = serve ]; then ${serving === undefined ? 'return 65' : 'return 0'}; elif [ "$1" = chatstate ]; then shift; node ${JSON.stringify(BIN)} "$@"; else return 64; fi; }`,
  ].join('\n');
  const script = serving === undefined ? block : block.replaceAll('localhost:3000', new URL(serving).host);
  return run('bash', ['-c', `${prelude}\n${script}`], cwd);
}

/** Runs `block` against `chatstate serve` over a copy of what `npm start` left. */
async function againstServer(block: string): Promise<CommandRun> {
  const cwd = await workingDirectory(true);
  const server = await startServe(['--store', `file:${join(cwd, '.chatstate')}`]);
  try {
    return await bash(block, cwd, server.url);
  } finally {
    await server.stop();
  }
}

function expectSuccess(result: CommandRun): void {
  expect(result.stderr).not.toContain('command failed');
  expect(result.code).toBe(0);
}

/** Every `etag: "N"` a comment of `block` promises is printed as such. */
function expectQuotedEtags(block: string, result: CommandRun): void {
  const promised = [...block.matchAll(/# etag: "(\d+)"/gi)].map((match) => match[1]);
  // The JSON before it ends without a newline.
  const printed = [...result.stdout.matchAll(/etag: "(\d+)"/gi)].map((match) => match[1]);
  expect(printed).toEqual(promised);
}

describe('docs: the chatstate command', () => {
  it('runs the shell block of docs/cli.md as written, npm start first, every command exiting 0', async () => {
    const cwd = await workingDirectory(false);
    const result = await bash(await shellBlock('docs/cli.md', '## After `npm start`'), cwd);
    expectSuccess(result);
    // What the commands printed, in order.
    expect(result.stdout).toMatch(/^ID +USER +AGENT/m);
    expect(result.stdout).toMatch(/^session trip-lisbon +user demo-user/m);
    expect(result.stdout).toMatch(/^valid$/m);
    expect(result.stdout).toMatch(/^tool calls \d+, results \d+$/m);
    expect(result.stdout).toContain('{"key":"home-airport","value":"LIS"}');
    expect(result.stdout).toMatch(/^trip-lisbon: would compact with slidingWindow/m);
    expect(result.stdout).toMatch(/^trip-lisbon-b$/m);
    expect(result.stdout).toMatch(/^deleted trip-lisbon-b$/m);
    expect(result.stdout).toMatch(/^session trip-rome /m);
    expect(JSON.parse(await readFile(join(cwd, 'request.json'), 'utf8'))).toHaveProperty('messages');
    // The fork the block made and deleted is not left in its source's list of forks (issue 21).
    const store = await openStore(`file:${join(cwd, '.chatstate')}`);
    try {
      expect(forkLog((await store.load('trip-lisbon')).metadata).map((entry) => entry.sessionId)).not.toContain(
        'trip-lisbon-b',
      );
    } finally {
      await store.close();
    }
  });

  it("runs the README's shell block after npm start", async () => {
    const cwd = await workingDirectory(true);
    const result = await bash(await shellBlock('README.md', '## The chatstate command'), cwd);
    expectSuccess(result);
    expect(result.stdout).toMatch(/^ID +USER +AGENT/m);
    expect(result.stdout).toMatch(/^session trip-lisbon +user demo-user/m);
    expect(result.stdout).toMatch(/^tool calls \d+, results \d+$/m);
    expect((await readFile(join(cwd, 'backup.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('runs the shell block of docs/interchange.md after npm start, printing what its comments say', async () => {
    const cwd = await workingDirectory(true);
    const result = await bash(await shellBlock('docs/interchange.md', '## Export, import'), cwd);
    expectSuccess(result);
    const printed = `${result.stdout}${result.stderr}`;
    expect(printed).toContain('3 imported, 0 already there');
    expect(printed).toContain('checked 3 sessions: no problems');
    expect(printed).toContain('verified: the target holds all 3 sessions, equal');
    expect(printed).toContain('checked 4 sessions: 0 repaired, 0 not repairable');
    expect((await readdir(join(cwd, 'penguin'))).sort()).toEqual(['session_index.json', 'trip-lisbon.json']);
  });
});

describe('docs: the HTTP server', () => {
  it("runs the README's curl lines against chatstate serve after npm start", async () => {
    const block = await shellBlock('README.md', '## The HTTP server');
    const result = await againstServer(block);
    expectSuccess(result);
    expectQuotedEtags(block, result);
    expect(result.stdout).toContain('"sessions":[');
    // The append with If-Match landed: no error body.
    expect(result.stdout).not.toContain('"code":');
    expect(result.stdout).toMatch(/"version":8\b/);
  });

  it('runs the curl lines of docs/server.md against chatstate serve after npm start', async () => {
    const block = await shellBlock('docs/server.md', '## Without keys');
    const result = await againstServer(block);
    expectSuccess(result);
    expectQuotedEtags(block, result);
    expect(result.stdout).not.toContain('"code":');
    expect(result.stdout).toMatch(/"version":8\b/);
  });

  it('runs the curl lines of docs/web.md against chatstate serve after npm start', async () => {
    const result = await againstServer(await shellBlock('docs/web.md', '## How it is built'));
    expectSuccess(result);
    expect(result.stdout).not.toContain('"code":');
    expect(result.stdout).toContain('"id":"trip-lisbon"');
    expect(result.stdout).toContain('"points":[');
  });
});

describe('docs: what npm start leaves', () => {
  /** Every page with its text. */
  async function pages(): Promise<Array<[string, string]>> {
    const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md'));
    return Promise.all(
      ['README.md', ...docs.map((name) => `docs/${name}`)].map(
        async (page) => [page, await readFile(join(ROOT, page), 'utf8')] as [string, string],
      ),
    );
  }

  it('is the sessions and the version of trip-lisbon that the pages quote', async () => {
    const store = await openStore(`file:${join(started, '.chatstate')}`);
    let version: number;
    let ids: string[];
    try {
      ids = (await store.list()).map((row) => row.id);
      version = (await store.load('trip-lisbon')).version;
    } finally {
      await store.close();
    }
    let quotes = 0;
    for (const [page, text] of await pages()) {
      // `If-Match: "N"` and `etag: "N"` of trip-lisbon, and "trip-lisbon … at version N".
      for (const line of text.split('\n').filter((line) => line.includes('trip-lisbon'))) {
        for (const match of line.matchAll(/(?:If-Match|etag): "(\d+)"/gi)) {
          quotes += 1;
          expect(Number(match[1]), `${page}: ${line}`).toBe(version);
        }
      }
      for (const match of text.matchAll(/`trip-lisbon`[^.]*?at version (\d+)/g)) {
        quotes += 1;
        expect(Number(match[1]), `${page}: ${match[0]}`).toBe(version);
      }
      // Every trip-… session a command or a URL names is one npm start leaves, or one a page makes (`--id NAME`).
      const made = new Set([...text.matchAll(/--id (trip-[a-z0-9-]+)/g)].map((match) => match[1]));
      for (const match of text.matchAll(/(?:npx chatstate [a-z]+ |sessions\/)(trip-[a-z0-9-]*[a-z0-9])/g)) {
        const id = match[1] as string;
        if (!made.has(id)) expect(ids, `${page} names ${id}`).toContain(id);
      }
    }
    expect(quotes).toBeGreaterThanOrEqual(4);
  });
});
