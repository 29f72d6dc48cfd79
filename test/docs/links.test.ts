import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README is what a newcomer reads first, so it stays short and every page it sends them to,
// and every page those send them on to, must exist with the heading the link names.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The README's length limit: a newcomer reads it in five minutes; reference goes to docs/. */
const README_MAX_LINES = 300;

/** The hand-written pages whose links are checked, relative to the repository root. */
function markdownPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', 'SECURITY.md', ...docs].sort();
}

/** A page without its fenced code blocks and inline code, where brackets are no links. */
function withoutCode(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
}

/**
 * The anchors of a page's headings as GitHub writes them: the heading's text without its
 * markup, lower-cased, punctuation dropped, spaces as `-`, and `-1`, `-2` after a repeat.
 */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading = ''] of text.matchAll(/^#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const slug = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    let anchor = slug;
    for (let repeat = 1; anchors.has(anchor); repeat += 1) anchor = `${slug}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Reads a file of the repository: its text, `''` for a folder, `undefined` when missing. */
type ReadFile = (path: string) => string | undefined;

/**
 * The links of a page that lead nowhere: a relative file that is missing, or a `#heading` that
 * the page it points into does not have. Web addresses are not followed.
 * @param page - the page's path relative to the repository root
 */
function brokenLinks(page: string, read: ReadFile): string[] {
  const broken: string[] = [];
  const markdown = read(page) ?? '';
  for (const [, target = ''] of withoutCode(markdown).matchAll(
    /!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g,
  )) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#', 2);
    const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
    const text = read(file);
    if (text === undefined) broken.push(`${target} (no file ${file})`);
    else if (anchor !== undefined && !anchorsOf(text).has(anchor))
      broken.push(`${target} (no heading #${anchor} in ${file})`);
  }
  return broken;
}

/** The repository's files, as `brokenLinks` reads them. */
const readRepositoryFile: ReadFile = (path) => {
  const absolute = join(ROOT, path);
  if (relative(ROOT, absolute).startsWith('..') || !existsSync(absolute)) return undefined;
  return statSync(absolute).isDirectory() ? '' : readFileSync(absolute, 'utf8');
};

describe('Docs: README.md and docs/', () => {
  it(`keeps the README at ${README_MAX_LINES} lines or fewer`, () => {
    // Act
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;

    // Assess
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(markdownPages())('%s links only to files and headings that exist', (page) => {
    // Act
    const broken = brokenLinks(page, readRepositoryFile);

    // Assess
    expect(broken).toEqual([]);
  });

  it('finds a link to a missing file, a missing heading, and none inside code', () => {
    // Prepare: a page whose first two links lead nowhere; the others work or are code.
    const files = new Map([
      [
        'docs/a.md',
        [
          '# A',
          'See [gone](gone.md), [b](b.md#nowhere), [b](b.md#local-run-npm-start-and-tools),',
          '[top](#a), [readme](../README.md) and [web](https://example.com/x.md).',
          '`[not a link](missing.md)`',
          '```sh',
          '[not a link either](missing.md)',
          '```',
        ].join('\n'),
      ],
      ['docs/b.md', '# B\n\n## Local run (`npm start`) and tools\n'],
      ['README.md', '# Readme\n'],
    ]);

    // Act
    const broken = brokenLinks('docs/a.md', (path) => files.get(path));

    // Assess
    expect(broken).toEqual([
      'gone.md (no file docs/gone.md)',
      'b.md#nowhere (no heading #nowhere in docs/b.md)',
    ]);
  });
});
