/**
 * `chatstate import` given a path of the wrong kind, through the built bin (issue 21: `import
 * --from penguin FILE` refused a Penguin session file with ENOTDIR, "not readable"). Penguin reads
 * a session file as well as a directory; every importer, and the import of chatstate's own files,
 * says what it expected with a typed error, and starts no store for a path it refuses.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLEAN, ROOT, writePenguinDirectory } from '../fixtures/interchange/penguin/make.js';
import { ensureBuilt, runCli } from './cli-process.js';

beforeAll(ensureBuilt, 600_000);

let dir = '';
let conversations = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-import-paths-'));
  conversations = join(dir, 'conversations');
  await writePenguinDirectory(conversations);
  await mkdir(join(dir, 'a-directory'));
  await writeFile(join(dir, 'notes.txt'), 'plain words, not JSON');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let stores = 0;
/** A store URL that does not exist yet. */
const freshStore = (): string => `file:${join(dir, `store-${++stores}`)}`;

describe('import --from penguin', () => {
  it('imports one session file, as the README and the issue try it', async () => {
    const store = freshStore();
    const result = await runCli([
      'import',
      '--from',
      'penguin',
      join(conversations, `${CLEAN}.json`),
      '--store',
      store,
    ]);
    expect(result).toEqual({
      code: 0,
      stdout: '1 imported, 0 already there\n',
      stderr: `new store at ${store.slice('file:'.length)} (it did not exist)\n`,
    });
    const listed = await runCli(['list', '--json', '--store', store]);
    expect(listed.stdout).toContain(`"id":"${CLEAN}"`);
    // The whole directory afterwards: the same session is there already.
    const all = await runCli(['import', '--from', 'penguin', conversations, '--store', store, '--quiet']);
    expect(all.stdout).toMatch(/^\d+ imported, 1 already there, 3 not readable\n$/);
    const again = await runCli([
      'import',
      '--from',
      'penguin',
      join(conversations, `${ROOT}.json`),
      '--store',
      store,
      '--quiet',
    ]);
    expect(again).toEqual({ code: 0, stdout: '0 imported, 1 already there\n', stderr: '' });
  });
});

describe('a path an importer cannot read: one error line saying what was expected, and no store started', () => {
  const cases: ReadonlyArray<readonly [string, string[], number, RegExp]> = [
    [
      'a missing path (penguin)',
      ['--from', 'penguin', 'absent'],
      1,
      /^error NOT_FOUND: penguin: .*absent does not exist; expected a Penguin conversations\/ directory, or one of its session files \(<id>\.json\)\n$/,
    ],
    [
      'a directory for a database (langgraph)',
      ['--from', 'langgraph', 'a-directory'],
      2,
      /^error INVALID_ARGUMENT: langgraph: .*a-directory is a directory; expected a LangGraph\.js SqliteSaver database file/,
    ],
    [
      'a directory for a file (openai-agents)',
      ['--from', 'openai-agents', 'a-directory'],
      2,
      /^error INVALID_ARGUMENT: openai-agents: .*a-directory is a directory; expected an Agents SDK SQLiteSession database/,
    ],
    [
      'a text file for a database (langgraph)',
      ['--from', 'langgraph', 'notes.txt'],
      1,
      /^error CORRUPT: langgraph: .*notes\.txt is not a SQLite database; expected a LangGraph\.js SqliteSaver database file/,
    ],
    [
      'a missing file (chatstate export lines)',
      ['absent.jsonl'],
      1,
      /^error NOT_FOUND: Cannot read ".*absent\.jsonl": it does not exist; expected a file of chatstate export lines, a session JSON or JSON lines of sessions, or - for stdin\n$/,
    ],
    [
      'a directory (chatstate export lines; it was an untyped EISDIR)',
      ['a-directory'],
      2,
      /^error INVALID_ARGUMENT: Cannot read ".*a-directory": it is a directory; expected a file of chatstate export lines, .* \(another system's directory: --from coreason\|goaitools\|langgraph\|magent\|openai-agents\|penguin\)\n$/,
    ],
    [
      'a directory (a provider wire history)',
      ['--from', 'openaiChat', 'a-directory'],
      2,
      /^error INVALID_ARGUMENT: Cannot read ".*a-directory": it is a directory; expected a wire history of openaiChat \(a JSON file\), or - for stdin/,
    ],
  ];

  it.each(cases)('%s', async (_name, args, code, stderr) => {
    const store = freshStore();
    const path = args.at(-1) as string;
    const result = await runCli(['import', ...args.slice(0, -1), join(dir, path), '--store', store]);
    expect(result.stderr).toMatch(stderr);
    expect(result).toMatchObject({ code, stdout: '' });
    expect(existsSync(store.slice('file:'.length))).toBe(false);
  });
});

describe('a file whose content is not what the importer reads: a problem saying what was expected, exit 1', () => {
  const cases: ReadonlyArray<readonly [string[], string]> = [
    [['--from', 'penguin'], 'a Penguin session file (<id>.json: a JSON object with "id" and "messages")'],
    [['--from', 'magent'], 'a Magent saved session (a JSON object with timestamp, buffer-content or schema-version)'],
    [
      ['--from', 'coreason'],
      'a Coreason SessionState dump (a JSON object with agent_id, user_id, created_at, history)',
    ],
    [
      ['--from', 'goaitools'],
      'a goaitools ConversationState blob (a JSON object with version 1 and messages, or base64 of one)',
    ],
    [
      ['--from', 'openai-agents'],
      'an Agents SDK SQLiteSession database (Python), or a JSON array of AgentInputItems (JS)',
    ],
    [[], 'chatstate export lines, a session JSON or JSON lines of sessions'],
    [['--from', 'anthropic'], 'a wire history of anthropic'],
  ];

  it.each(cases)('import %j notes.txt', async (args, expected) => {
    const result = await runCli(['import', ...args, join(dir, 'notes.txt'), '--store', freshStore(), '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('0 imported, 0 already there, 1 not readable\n');
    expect(result.stderr).toMatch(/^warning: .*notes\.txt.*: (CORRUPT|INVALID_ARGUMENT): .*; expected /);
    expect(result.stderr).toContain(`; expected ${expected}\n`);
  });
});
