/**
 * docs/mcp.md's example: examples/mcp-client.ts runs (an MCP client starting `chatstate mcp` over
 * stdio) and prints what the page says, on a fresh store and again on the same store.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-process.js';
import { runCommand } from '../support/run-command.js';

const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const EXAMPLE = join(ROOT, 'examples', 'mcp-client.ts');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatstate-mcp-doc-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('docs/mcp.md', () => {
  it('runs examples/mcp-client.ts as the page says, twice on one store', async () => {
    const store = `sqlite:${join(dir, 'memory.db')}`;
    const first = await runCommand(process.execPath, [TSX, EXAMPLE, store], { cwd: ROOT });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(
      [
        `store: ${store}`,
        'created 2 entities (none on a second run: they exist)',
        'search "window": Alice',
        'recall: Alice is allergic to peanuts.',
        'graph: 2 entities, 1 relation',
        '',
      ].join('\n'),
    );
    const second = await runCommand(process.execPath, [TSX, EXAMPLE, store], { cwd: ROOT });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('created 0 entities');
    expect(second.stdout).toContain('graph: 2 entities, 1 relation');
    const page = await readFile(join(ROOT, 'docs', 'mcp.md'), 'utf8');
    expect(page).toContain('created 2 entities (none on a second run: they exist)');
  }, 120_000);
});
