/**
 * The README's "Use it in your project", as a newcomer follows it: a fresh project made with the
 * README's own commands (`npm init -y && npm pkg set type=module`), `chatstate` installed (a
 * symlink to this repository, built: the package's `exports` point at dist/), the example saved as
 * app.ts and run with tsx. It runs, prints what the README says, and type-checks under strict
 * TypeScript; the same project without `"type": "module"` fails with the CommonJS top-level-await
 * error the README warns about, and app.mts runs there.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../cli/cli-process.js';
import { codeBlocks, docsSection } from '../support/readme-example.js';
import { environmentWithout, runCommand, type CommandRun } from '../support/run-command.js';

const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const directories: string[] = [];
let section = '';

/** Runs a command in `cwd` as a newcomer's shell would: without this run's chatstate, npm and Node options. */
function run(command: string, args: readonly string[], cwd: string): Promise<CommandRun> {
  return runCommand(command, args, { cwd, env: environmentWithout(['CHATSTATE_', 'npm_'], ['NODE_OPTIONS']) });
}

/**
 * A new project: the README's `npm init` line run as written (or only `npm init -y`), chatstate
 * linked in as `npm install chatstate` would put it, and the README's example as `file`.
 */
async function project(initLine: string, file: string): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'chatstate-newcomer-'));
  directories.push(cwd);
  const init = await run('bash', ['-c', `set -e\n${initLine}`], cwd);
  if (init.code !== 0) throw new Error(`${initLine} failed: ${init.stderr}`);
  await mkdir(join(cwd, 'node_modules'));
  await symlink(ROOT, join(cwd, 'node_modules', 'chatstate'), 'dir');
  const example = codeBlocks(section, 'ts')[0];
  if (example === undefined) throw new Error('"Use it in your project" has no ts example');
  await writeFile(join(cwd, file), example);
  return cwd;
}

/** The `npm init …` line of the section's first sh block. */
function initLine(): string {
  const line = (codeBlocks(section, 'sh')[0] ?? '').split('\n').find((text) => text.startsWith('npm init'));
  if (line === undefined) throw new Error('"Use it in your project" has no npm init line');
  return line.replace(/#.*$/, '').trim();
}

beforeAll(async () => {
  section = await docsSection('README.md', '## Use it in your project');
  await ensureBuilt();
}, 600_000);
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

describe('README: use it in your project', () => {
  it('says ESM, "type": "module" and Node ≥ 20.19, as package.json does', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      type: string;
      engines: { node: string };
    };
    expect(pkg.type).toBe('module');
    expect(section).toContain('"type": "module"');
    expect(section).toContain(`Node.js ≥ ${pkg.engines.node.replace(/^>=/, '')}`);
    expect(initLine()).toBe('npm init -y && npm pkg set type=module');
  });

  it('runs in a fresh project made as the README says, prints what it says, and type-checks', async () => {
    const cwd = await project(initLine(), 'app.ts');
    expect(JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
    const promised = /`npx tsx app\.ts` prints `([^`]+)`/.exec(section.replace(/\s+/g, ' '))?.[1];
    expect(promised).toBeDefined();
    const first = await run(process.execPath, [TSX, 'app.ts'], cwd);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(promised);
    // Run again: the same (save replaces the session).
    expect((await run(process.execPath, [TSX, 'app.ts'], cwd)).stdout.trim()).toBe(promised);
    // "`npx chatstate show hello` prints what this saves"
    const shown = await run(process.execPath, [BIN, 'show', 'hello'], cwd);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^session hello +user u-42 +agent assistant/m);
    expect(shown.stdout).toContain('And tomorrow?');
    // A strict TypeScript project accepts it, types from the package, and the README's other
    // examples that need chatstate alone.
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const others = codeBlocks(readme, 'ts').filter(
      (code) =>
        !code.includes('// app.ts') &&
        [...code.matchAll(/from '([^']+)'/g)].every(([, from]) => /^chatstate(\/|$)/.test(from ?? '')),
    );
    expect(others.length).toBeGreaterThanOrEqual(2);
    const files = await Promise.all(
      others.map(async (code, index) => {
        await writeFile(join(cwd, `readme-${index}.ts`), code);
        return `readme-${index}.ts`;
      }),
    );
    const checked = await run(
      process.execPath,
      [
        TSC,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--skipLibCheck',
        'app.ts',
        ...files,
      ],
      cwd,
    );
    expect(checked.stdout).toBe('');
    expect(checked.code).toBe(0);
  });

  it('fails without "type": "module" with the error the README quotes, and runs as app.mts', async () => {
    const cwd = await project('npm init -y', 'app.ts');
    expect(JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8'))).not.toHaveProperty('type', 'module');
    const failed = await run(process.execPath, [TSX, 'app.ts'], cwd);
    expect(failed.code).not.toBe(0);
    const quoted = /_(Top-level await is currently not supported with the "cjs" output format)_/.exec(
      section.replace(/\s+/g, ' '),
    )?.[1];
    expect(quoted).toBeDefined();
    expect(failed.stderr).toContain(quoted);
    await copyFile(join(cwd, 'app.ts'), join(cwd, 'app.mts'));
    const mts = await run(process.execPath, [TSX, 'app.mts'], cwd);
    expect(mts.code).toBe(0);
    expect(mts.stdout).toContain('messages stored');
  });
});
