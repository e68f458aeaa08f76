/**
 * Documentation examples as tests: the ```ts block of one subsection of README.md or a docs/ page,
 * its `chatstate` imports pointed at the source (through package.json `exports`), written under
 * .tmp/ and imported, so the code a reader pastes is the code that runs.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';

const root = new URL('../../', import.meta.url);

/** `from 'chatstate…'` of every subpath in package.json `exports`, as `from '../src/….js'` (seen from .tmp/). */
export async function toSource(code: string, page = 'README.md'): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as {
    exports: Record<string, string | { default?: string }>;
  };
  return code.replace(/from '(chatstate(?:\/[a-z0-9/-]+)?)'/g, (whole, specifier: string) => {
    const entry = pkg.exports[`.${specifier.slice('chatstate'.length)}`];
    const target = typeof entry === 'string' ? entry : entry?.default;
    if (target === undefined) throw new Error(`${page} imports ${specifier}, which package.json does not export`);
    return `from '${target.replace(/^\.\/dist\//, '../src/')}'`;
  });
}

/**
 * The text of the subsection of `page` (a path from the repository root) whose heading line starts
 * with `heading` (`## Stores`, `### LangGraph`), up to the next heading of any level.
 */
export async function docsSection(page: string, heading: string): Promise<string> {
  const lines = (await readFile(new URL(page, root), 'utf8')).split('\n');
  let fenced = false;
  let start = -1;
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) {
      if (start !== -1) return lines.slice(start, index).join('\n');
      if (line.startsWith(heading)) start = index;
    }
  }
  if (start === -1) throw new Error(`${page} has no subsection "${heading}"`);
  return lines.slice(start).join('\n');
}

/** The code of every ````lang` block of `section`, in order. */
export function codeBlocks(section: string, lang: string): string[] {
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1] as string,
  );
}

/**
 * The ```ts block (the `index`th, from 0) of the subsection of `page` whose heading starts with
 * `heading`, imports pointed at src/.
 */
export async function docsExample(page: string, heading: string, index = 0): Promise<string> {
  const code = codeBlocks(await docsSection(page, heading), 'ts')[index];
  if (code === undefined) throw new Error(`${page}: the subsection "${heading}" has no ts example #${index}`);
  return toSource(code, page);
}

/** The ```ts block of the README subsection whose heading starts with `heading`, imports pointed at src/. */
export function readmeExample(heading: string): Promise<string> {
  return docsExample('README.md', heading);
}

/** Writes `source` as .tmp/`name` and imports it (a fresh module each call). */
export async function importExample<T>(name: string, source: string): Promise<T> {
  const dir = new URL('.tmp/', root);
  await mkdir(dir, { recursive: true });
  const file = new URL(name, dir);
  await writeFile(file, source);
  return (await import(`${file.href}?t=${Date.now()}`)) as T;
}
