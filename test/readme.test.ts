/** The README's tour is code a newcomer will paste: it must run as written. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

describe('README', () => {
  it('starts with the two commands', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/npm start/);
    expect(firstBlock).toMatch(/npm test/);
  });

  it('has a tour that runs against the library', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const tour = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(tour).toBeDefined();
    const runnable = (tour as string)
      .replace("from 'chatstate'", "from '../src/index.js'")
      .replaceAll('process.env.STATE_KEY!', "'a-test-key-that-is-long-enough'");
    const dir = new URL('../.tmp/', import.meta.url);
    await mkdir(dir, { recursive: true });
    const file = new URL('readme-tour.ts', dir);
    await writeFile(file, `${runnable}\nexport { session, compacted, result, warnings, restored, rejected };\n`);
    const module = (await import(file.href)) as { restored: unknown[]; rejected: unknown; warnings: unknown[] };
    expect(module.rejected).toBeUndefined();
    expect(module.restored.length).toBeGreaterThan(0);
    expect(module.warnings).toEqual([]);
  });
});
