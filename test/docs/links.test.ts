/**
 * Every relative link of README.md and docs/*.md points at a file that exists, and its `#anchor`
 * at a heading of that page (GitHub's slugs), so moving a section cannot silently break a link.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-process.js';

/** The page's lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, …. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The targets of the page's Markdown links and images, inline code left out. */
function linksOf(text: string): string[] {
  const targets: string[] = [];
  for (const line of prose(text)) {
    const plain = line.replace(/`[^`]*`/g, '');
    for (const match of plain.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(match[1] as string);
  }
  return targets;
}

async function pages(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

describe('documentation links', () => {
  it('computes GitHub anchors', () => {
    expect([
      ...anchorsOf('# A `code` title\n## After `npm start`\n```sh\n# not a heading\n```\n## Errors\n## Errors'),
    ]).toEqual(['a-code-title', 'after-npm-start', 'errors', 'errors-1']);
  });

  it('every relative link of README.md and docs/*.md points at an existing file and heading', async () => {
    const problems: string[] = [];
    let checked = 0;
    let anchored = 0;
    for (const page of await pages()) {
      const text = await readFile(join(ROOT, page), 'utf8');
      for (const target of linksOf(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        checked += 1;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
        if (relative(ROOT, file).startsWith('..')) problems.push(`${page}: ${target} leaves the repository`);
        else if (!existsSync(file)) problems.push(`${page}: ${target} — no such file`);
        else if (anchor !== undefined) {
          anchored += 1;
          if (!file.endsWith('.md')) problems.push(`${page}: ${target} — an anchor into a file that is not Markdown`);
          else if (!anchorsOf(await readFile(file, 'utf8')).has(anchor))
            problems.push(`${page}: ${target} — no heading #${anchor} in ${relative(ROOT, file)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(50);
    expect(anchored).toBeGreaterThan(10);
  });

  it('every page of docs/ is listed in the index, docs/README.md', async () => {
    const index = await readFile(join(ROOT, 'docs', 'README.md'), 'utf8');
    const listed = new Set(linksOf(index));
    for (const page of await pages())
      if (page.startsWith('docs/') && page !== 'docs/README.md')
        expect(listed, `docs/README.md does not list ${page}`).toContain(page.slice('docs/'.length));
  });
});
