/** Runs `import-child.ts` in a fresh Node process and returns what it printed and the modules it resolved. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ImportOutcome, ImportPlan } from './import-child.js';

const CHILD = fileURLToPath(new URL('./import-child.ts', import.meta.url));

/** Imports `plan.target` in a child process; `modules` are the file URLs it resolved. */
export function importInChild(plan: Omit<ImportPlan, 'trace'>): ImportOutcome & { modules: string[] } {
  const directory = mkdtempSync(join(tmpdir(), 'chatstate-import-'));
  const trace = join(directory, 'trace.txt');
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify({ ...plan, trace })], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (result.status !== 0 || result.stdout.length === 0)
      throw new Error(`import child failed (${String(result.status)}): ${result.stderr}`);
    const modules = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('file:'));
    return { ...(JSON.parse(result.stdout) as ImportOutcome), modules };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
