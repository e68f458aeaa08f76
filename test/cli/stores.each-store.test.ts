/**
 * The store-backed commands against every store (one matrix): the built bin as a real process,
 * checked by its stdout, stderr and exit code, over sessions the test wrote through the library.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { runCli, type CliResult } from './cli-process.js';
import { cliStores } from './cli-stores.js';
import { describeEachStore } from '../support/stores-under-test.js';
import { seed } from './seed.js';

/** The JSON lines of a `--json` listing. */
function jsonLines(result: CliResult): Array<Record<string, unknown>> {
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Makes the store at `url` exist with no sessions: a session written, then deleted. */
async function emptied(url: string): Promise<void> {
  const opened = await openStore(url);
  try {
    await opened.save(Session.create({ id: 'scratch' }));
    await opened.delete('scratch');
  } finally {
    await opened.close();
  }
}

const MEMORY_REASON = 'memory: lives in one process, so sessions the test seeds are not in the CLI process';

describeEachStore(cliStores(), 'chatstate against the $name store', (store) => {
  let skipped: string | undefined;
  let seeded = '';

  beforeAll(async () => {
    skipped = await store.start();
    if (skipped === undefined && store.shared) {
      seeded = await store.freshUrl();
      await seed(seeded);
    }
  }, 180_000);
  afterAll(() => store.stop());

  /** A fresh store with the test sessions, for a test that changes it. */
  async function freshSeeded(): Promise<string> {
    const url = await store.freshUrl();
    await seed(url);
    return url;
  }

  it('reports a missing session as NOT_FOUND, exit 1', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    const url = store.shared ? seeded : await store.freshUrl();
    const result = await runCli(['show', 'no-such-session', '--store', url]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error NOT_FOUND: No session "no-such-session"/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('lists an empty store with a note and exit 0; purge-expired of nothing says 0', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    const url = await store.freshUrl();
    // A store that exists with no sessions (one that does not exist is refused: missing-store.test.ts).
    if (store.shared) await emptied(url);
    const listed = await runCli(['list', '--store', url]);
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.stdout.trim()).toMatch(/^ID\s+USER/);
    expect(listed.stderr).toBe('no sessions\n');
    expect(await runCli(['list', '--store', url, '--json', '--quiet'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runCli(['purge-expired', '--store', url])).toMatchObject({
      code: 0,
      stdout: 'purged 0 expired sessions\n',
    });
  });

  it('lists sessions with filters, sort, limit and offset; flags a retention; an expired session is gone', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const all = await runCli(['list', '--store', seeded, '--json']);
    expect(all.code).toBe(0);
    const rows = jsonLines(all);
    expect(rows.map((row) => row.id).sort()).toEqual(['chain-a', 'chain-b', 'old', 'trip']);
    expect(rows.find((row) => row.id === 'old')).toMatchObject({ userId: 'alice', expiresAt: expect.any(String) });
    expect(rows.find((row) => row.id === 'trip')).toMatchObject({ messageCount: 6, agentId: 'planner' });

    expect(
      jsonLines(await runCli(['list', '--store', seeded, '--json', '--user', 'bob']))
        .map((row) => row.id)
        .sort(),
    ).toEqual(['chain-a', 'chain-b']);
    expect(
      jsonLines(await runCli(['list', '--store', seeded, '--json', '--agent', 'planner'])).map((row) => row.id),
    ).toEqual(['trip']);
    expect(jsonLines(await runCli(['list', '--store', seeded, '--json', '--expiring'])).map((row) => row.id)).toEqual([
      'old',
    ]);
    expect(jsonLines(await runCli(['list', '--store', seeded, '--json', '--since', '2999-01-01']))).toEqual([]);
    const created = jsonLines(await runCli(['list', '--store', seeded, '--json', '--sort', 'created']));
    expect(created.map((row) => row.id)).toEqual(['old', 'chain-b', 'chain-a', 'trip']);
    const page = jsonLines(
      await runCli(['list', '--store', seeded, '--json', '--sort', 'created', '--limit', '2', '--offset', '1']),
    );
    expect(page.map((row) => row.id)).toEqual(['chain-b', 'chain-a']);

    const table = await runCli(['list', '--store', seeded]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID +USER +AGENT +MSGS +TOKENS +UPDATED +FLAGS +TITLE$/m);
    expect(table.stdout).toMatch(/^old +alice .* expires \d{4}-\d{2}-\d{2}/m);
    // Piped: no color codes.
    expect(table.stdout).not.toContain('\u001b[');
  });

  it('lists with --expired only the sessions whose retention ended, until purge-expired removes them', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const url = await freshSeeded();
    const ids = async (...options: string[]): Promise<unknown[]> =>
      jsonLines(await runCli(['list', '--store', url, '--json', ...options])).map((row) => row.id);
    // `gone` (1 ms of retention) has expired; Redis expired its keys itself at once, so none is left there.
    const expired = store.name === 'redis' || store.name === 'redis-cluster' ? [] : ['gone'];
    expect(await ids('--expired')).toEqual(expired);
    expect(await ids('--expired', '--user', 'alice')).toEqual(expired);
    expect(await ids('--expired', '--user', 'bob')).toEqual([]);
    expect(await ids('--expired', '--expiring')).toEqual(expired);
    expect(await ids()).not.toContain('gone');
    const rows = jsonLines(await runCli(['list', '--store', url, '--json', '--expired']));
    for (const row of rows) expect(Date.parse(String(row.expiresAt))).toBeLessThanOrEqual(Date.now());
    expect(await runCli(['purge-expired', '--store', url, '--json'])).toMatchObject({ code: 0 });
    expect(await ids('--expired')).toEqual([]);
    const table = await runCli(['list', '--store', url, '--expired']);
    expect(table).toMatchObject({ code: 0, stderr: 'no sessions\n' });
    // The live ones are still there.
    expect((await ids()).sort()).toEqual(['chain-a', 'chain-b', 'old', 'trip']);
  });

  it('shows a transcript with tool calls paired with their results, ranges, JSON and the wire form', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const shown = await runCli(['show', 'trip', '--store', seeded]);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toBe('');
    const lines = shown.stdout.split('\n');
    expect(lines[0]).toMatch(/^session trip +user alice +agent planner +version \d+ +6 messages$/);
    const call = lines.findIndex((line) => line.includes('→ get_weather'));
    expect(call).toBeGreaterThan(0);
    expect(lines[call]).toContain('{"city":"Lisbon"} (call call-1)');
    expect(lines[call + 1]).toMatch(/← \{"city":"Lisbon","sky":"sunny","celsius":24\} \(#3 tool_output\)/);
    expect(shown.stdout).toMatch(/#1 +dialog\/user +What is the weather in Lisbon\?/);
    // The result is shown once, with its call.
    expect(shown.stdout.match(/sunny/g)).toHaveLength(2);

    const tail = await runCli(['show', 'trip', '--store', seeded, '--tail', '2']);
    expect(tail.stdout).toContain('(showing 2)');
    expect(tail.stdout).not.toContain('get_weather');
    expect(tail.stdout).toContain('window seat');

    const range = await runCli(['show', 'trip', '--store', seeded, '--range', '3..4']);
    expect(range.stdout).toMatch(/#3 +tool_output\/tool +← .*\(its call call-1 is not shown\)/);
    expect(range.stdout).toContain('24 °C');
    expect(range.stdout).not.toContain('What is the weather');

    const json = await runCli(['show', 'trip', '--store', seeded, '--json', '--tail', '1']);
    const document = JSON.parse(json.stdout) as { id: string; messages: Array<{ content: unknown }> };
    expect(document.id).toBe('trip');
    expect(document.messages).toHaveLength(1);

    const wire = await runCli(['show', 'trip', '--store', seeded, '--format', 'openaiChat']);
    expect(wire.code).toBe(0);
    const body = JSON.parse(wire.stdout) as { messages: Array<{ role: string }> };
    expect(body.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(body).not.toHaveProperty('warnings');

    const chain = await runCli(['show', 'chain-b', '--store', seeded]);
    expect(chain.stdout).toMatch(/^continues chain-a \(link 1 of its chain\)$/m);
    expect((await runCli(['show', 'chain-a', '--store', seeded])).stdout).toMatch(/^continued in chain-b$/m);
  });

  it('prints statistics of a session, of its chain and of the whole store', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const one = JSON.parse((await runCli(['stats', 'trip', '--store', seeded, '--json'])).stdout) as {
      tokens: { byCategory: Record<string, number> };
      chain: unknown;
    };
    expect(one).toMatchObject({
      id: 'trip',
      messages: 6,
      toolCalls: { total: 1, byName: { get_weather: 1 } },
      toolResults: 1,
    });
    expect(one.tokens.byCategory.tool_output).toBeGreaterThan(0);
    expect(one.chain).toMatchObject({ ids: ['trip'], missing: [] });

    const chain = JSON.parse((await runCli(['stats', 'chain-b', '--store', seeded, '--json'])).stdout) as {
      chain: unknown;
    };
    expect(chain.chain).toMatchObject({ ids: ['chain-a', 'chain-b'], messageCount: 4 });

    const text = await runCli(['stats', 'chain-a', '--store', seeded, '--counter', 'o200k_base']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^chain +2 sessions, 4 messages, \d+ tokens$/m);
    expect(text.stdout).toContain('(counter o200k_base)');

    const all = JSON.parse((await runCli(['stats', '--all', '--store', seeded, '--json'])).stdout) as unknown;
    expect(all).toMatchObject({ sessions: 4, messages: 11, toolCalls: { get_weather: 1 }, toolResults: 1 });
  });

  it('compacts: --dry-run writes nothing, a real run saves the compacted session', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const url = await freshSeeded();
    const dry = await runCli([
      'compact',
      'trip',
      '--strategy',
      'slidingWindow',
      '--turns',
      '1',
      '--dry-run',
      '--store',
      url,
    ]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^trip: would compact with slidingWindow: 6 → 2 messages, \d+ → \d+ tokens; removed 4/);
    expect(
      jsonLines(await runCli(['list', '--store', url, '--json', '--user', 'alice', '--agent', 'planner']))[0],
    ).toMatchObject({ messageCount: 6 });

    const real = await runCli([
      'compact',
      'trip',
      '--strategy',
      'slidingWindow',
      '--turns',
      '1',
      '--store',
      url,
      '--json',
    ]);
    expect(real.code).toBe(0);
    expect(JSON.parse(real.stdout)).toMatchObject({
      sessionId: 'trip',
      compacted: true,
      written: true,
      messagesAfter: 2,
    });
    const after = JSON.parse((await runCli(['show', 'trip', '--store', url, '--json'])).stdout) as {
      messages: unknown[];
    };
    expect(after.messages).toHaveLength(2);

    const all = await runCli([
      'compact',
      '--all',
      '--strategy',
      'messageLimit',
      '--max-messages',
      '50',
      '--store',
      url,
    ]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^chain-a: nothing to compact/m);
  });

  it('forks at a sequence number, deletes (only with --yes when piped) and purges expired sessions', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const url = await freshSeeded();
    const forked = await runCli(['fork', 'trip', '--at', '4', '--id', 'trip-b', '--store', url]);
    expect(forked).toMatchObject({ code: 0, stdout: 'trip-b\n' });
    expect(forked.stderr).toMatch(/^forked trip at #4 into trip-b \(4 messages\)/);
    expect((await runCli(['show', 'trip-b', '--store', url])).stdout).toMatch(
      /^forked from trip at message \S+ \(#4\)$/m,
    );
    // The source lists its fork.
    expect((await runCli(['show', 'trip', '--store', url])).stdout).toMatch(/^forks: trip-b$/m);
    expect(await runCli(['fork', 'trip', '--at', '99', '--store', url])).toMatchObject({ code: 1 });

    const refused = await runCli(['delete', 'trip-b', '--store', url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^error INVALID_ARGUMENT: delete asks for confirmation, and cannot ask here \(not a terminal\): pass --yes/,
    );
    const deleted = await runCli(['delete', 'trip-b', 'nothing-here', '--yes', '--store', url]);
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toBe('deleted trip-b\n');
    expect(deleted.stderr).toBe('warning: no session nothing-here\n');
    expect(await runCli(['show', 'trip-b', '--store', url])).toMatchObject({ code: 1 });

    // `gone` expired: the purge removes it, unless the backend's own expiry did first (Redis key TTLs).
    expect(await runCli(['purge-expired', '--store', url, '--json'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^\{"purged":[01]\}\n$/),
    });
    expect(await runCli(['purge-expired', '--store', url, '--json'])).toMatchObject({
      code: 0,
      stdout: '{"purged":0}\n',
    });
    expect(jsonLines(await runCli(['list', '--store', url, '--json'])).map((row) => row.id)).not.toContain('gone');
  });

  it("searches a user's history and reads and writes scoped values", async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const url = await freshSeeded();
    const found = await runCli(['search', 'window seat', '--user', 'alice', '--store', url, '--json']);
    expect(found.code).toBe(0);
    const hits = jsonLines(found);
    expect(hits[0]).toMatchObject({ sessionId: 'trip', source: 'message' });
    expect(String(hits[0]?.text)).toContain('window seat');
    // Bob's sessions are not alice's.
    expect((await runCli(['search', 'tulips', '--user', 'alice', '--store', url])).code).toBe(1);
    expect((await runCli(['search', 'tulips', '--user', 'bob', '--store', url])).stdout).toContain('chain-b');

    expect(await runCli(['values', 'get', 'theme', '--user', 'alice', '--store', url])).toMatchObject({
      code: 0,
      stdout: '"dark"\n',
    });
    expect(
      await runCli([
        'values',
        'set',
        'limits',
        '{"daily":5}',
        '--scope',
        'agent',
        '--agent',
        'planner',
        '--user',
        'alice',
        '--store',
        url,
      ]),
    ).toMatchObject({ code: 0 });
    expect(
      jsonLines(
        await runCli([
          'values',
          'list',
          '--scope',
          'agent',
          '--agent',
          'planner',
          '--user',
          'alice',
          '--store',
          url,
          '--json',
        ]),
      ),
    ).toEqual([{ key: 'limits', value: { daily: 5 } }]);
    expect(
      await runCli(['values', 'set', 'mood', 'calm', '--scope', 'session', '--session', 'trip', '--store', url]),
    ).toMatchObject({ code: 0 });
    expect(
      await runCli(['values', 'get', 'mood', '--scope', 'session', '--session', 'trip', '--store', url]),
    ).toMatchObject({ stdout: '"calm"\n' });
    expect(await runCli(['values', 'set', 'n', '3', '--scope', 'app', '--store', url])).toMatchObject({ code: 0 });
    expect(await runCli(['values', 'list', '--scope', 'app', '--store', url])).toMatchObject({ stdout: 'n\t3\n' });
    expect(await runCli(['values', 'unset', 'n', '--scope', 'app', '--store', url])).toMatchObject({ code: 0 });
    expect(await runCli(['values', 'get', 'n', '--scope', 'app', '--store', url])).toMatchObject({
      code: 1,
      stdout: '',
    });
    const unscoped = await runCli(['values', 'get', 'theme', '--scope', 'agent', '--user', 'alice', '--store', url]);
    expect(unscoped).toMatchObject({ code: 2, stderr: 'error INVALID_ARGUMENT: --scope agent needs --agent ID\n' });
    expect(
      await runCli(['values', 'get', 'x', '--scope', 'session', '--session', 'nope', '--store', url]),
    ).toMatchObject({ code: 1 });
  });

  it('remembers, corrects and forgets facts, and searches as of a time', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const url = await store.freshUrl();
    const facts = (...args: string[]) => runCli(['knowledge', ...args, '--user', 'carol', '--store', url]);
    const texts = async (...args: string[]) =>
      jsonLines(await runCli(['search', 'carol lives', '--user', 'carol', '--store', url, '--json', ...args])).map(
        (hit) => hit.text,
      );
    const old = await facts('remember', 'carol lives in Lisbon', '--valid-from', '2024-01-01T00:00:00Z');
    expect(old).toMatchObject({ code: 0, stdout: expect.stringMatching(/^msg\S+\n$/) });
    const oldId = old.stdout.trim();
    const corrected = await facts(
      'remember',
      'carol lives in Porto',
      '--supersedes',
      oldId,
      '--valid-from',
      '2025-06-01T00:00:00Z',
      '--json',
    );
    expect(JSON.parse(corrected.stdout)).toMatchObject({ supersedes: oldId });
    expect(await texts()).toEqual(['carol lives in Porto']);
    expect((await texts('--include-superseded')).sort()).toEqual(['carol lives in Lisbon', 'carol lives in Porto']);
    expect(await texts('--as-of', '2025-01-01T00:00:00Z')).toEqual(['carol lives in Lisbon']);
    expect(await facts('forget', oldId)).toMatchObject({ code: 0 });
    expect(await texts('--include-superseded')).toEqual(['carol lives in Porto']);
    expect(await facts('forget', oldId)).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error NOT_FOUND/) });
    expect(await facts('remember', 'x', '--supersedes', '../x')).toMatchObject({ code: 2 });
    // The knowledge session is chatstate's own: out of list, shown with its kind by --all.
    const listed = async (...options: string[]) =>
      jsonLines(await runCli(['list', '--user', 'carol', '--store', url, '--json', ...options]));
    expect(await listed()).toEqual([]);
    const all = await listed('--all');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ userId: 'carol', kind: 'knowledge' });
    const table = await runCli(['list', '--all', '--user', 'carol', '--store', url]);
    expect(table.stdout).toMatch(new RegExp(`^${String(all[0]?.id).slice(0, 20)}.* knowledge`, 'm'));
  });

  it("shows, patches and lists the versions of a user's working memory", async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip(MEMORY_REASON);
    const url = await store.freshUrl();
    const wm = (...args: string[]) => runCli(['working-memory', ...args, '--user', 'alice', '--store', url]);
    expect(await wm('patch', '{"city":"Oslo","pets":{"cat":"Tom"}}')).toMatchObject({ code: 0 });
    const patched = await wm('patch', '{"pets":{"cat":null,"dog":"Rex"}}', '--by', 'alice', '--json');
    expect(JSON.parse(patched.stdout)).toMatchObject({
      version: 3,
      by: 'alice',
      document: { city: 'Oslo', pets: { dog: 'Rex' } },
    });
    const history = jsonLines(await wm('history', '--json'));
    expect(history.map((row) => [row.version, row.by])).toEqual([
      [1, 'cli'],
      [2, 'cli'],
      [3, 'alice'],
    ]);
    // A stale expected version is refused (exit 1, CONFLICT); a patch that is not an object is a usage error.
    expect(await wm('patch', '{"city":"Rome"}', '--expected-version', '2')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error CONFLICT: /),
    });
    expect(await wm('patch', '[1]')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error INVALID_ARGUMENT/),
    });
    expect(JSON.parse((await wm('show', '--json')).stdout)).toMatchObject({ version: 3 });
    // An agent's own memory is apart from the user's.
    expect(await wm('show', '--agent', 'coach', '--json')).toMatchObject({ stdout: '{"version":0,"document":{}}\n' });
  });
});
