/**
 * README examples as tests: the ```ts block of one README subsection, its `chatstate` imports
 * pointed at the source (through package.json `exports`), written under .tmp/ and imported, so
 * the code a reader pastes is the code that runs.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';

const root = new URL('../../', import.meta.url);

/** `from 'chatstate…'` of every subpath in package.json `exports`, as `from '../src/….js'` (seen from .tmp/). */
async function toSource(code: string): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as {
    exports: Record<string, string | { default?: string }>;
  };
  return code.replace(/from '(chatstate(?:\/[a-z0-9/-]+)?)'/g, (whole, specifier: string) => {
    const entry = pkg.exports[`.${specifier.slice('chatstate'.length)}`];
    const target = typeof entry === 'string' ? entry : entry?.default;
    if (target === undefined) throw new Error(`the README imports ${specifier}, which package.json does not export`);
    return `from '${target.replace(/^\.\/dist\//, '../src/')}'`;
  });
}

/** The ```ts block of the README subsection whose heading starts with `heading`, imports pointed at src/. */
export async function readmeExample(heading: string): Promise<string> {
  const readme = await readFile(new URL('README.md', root), 'utf8');
  const start = readme.indexOf(`\n${heading}`);
  if (start === -1) throw new Error(`the README has no subsection "${heading}"`);
  const rest = readme.slice(start + 1);
  const next = /\n#{1,6} /.exec(rest);
  const code = /```ts\n([\s\S]*?)```/.exec(next === null ? rest : rest.slice(0, next.index))?.[1];
  if (code === undefined) throw new Error(`the README subsection "${heading}" has no ts example`);
  return toSource(code);
}

/** Writes `source` as .tmp/`name` and imports it (a fresh module each call). */
export async function importExample<T>(name: string, source: string): Promise<T> {
  const dir = new URL('.tmp/', root);
  await mkdir(dir, { recursive: true });
  const file = new URL(name, dir);
  await writeFile(file, source);
  return (await import(`${file.href}?t=${Date.now()}`)) as T;
}
