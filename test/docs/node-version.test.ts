import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The Node.js the project needs is said once, in the README, and is what package.json's engines
// say: the strictest engines of what `npm install && npm test` runs, vite's (vitest's bundler).

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function json(path: string): { engines?: { node?: string }; packages?: Record<string, unknown> } {
  return JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
}

function page(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

const engines = json('package.json').engines?.node ?? '';

describe('The Node.js version', () => {
  it('is the engines range of vite, the strictest tool npm test runs, in package.json and its lock', () => {
    // Assess
    expect(engines).toBe(json('node_modules/vite/package.json').engines?.node);
    const lockRoot = json('package-lock.json').packages?.[''] as { engines?: { node?: string } };
    expect(lockRoot.engines?.node).toBe(engines);
  });

  it("is stated in the README's quick start as package.json's engines say it", () => {
    // Prepare: `^20.19.0 || >=22.12.0`
    const [, lowest, major, next] = /^\^((\d+)\.\d+)\.0 \|\| >=(\d+\.\d+)\.0$/.exec(engines) ?? [];

    // Assess
    expect(page('README.md')).toContain(
      `Node.js ${lowest} or a later ${major}, or ${next} or newer (\`engines\` in \`package.json\`)`,
    );
  });

  it('is stated nowhere else', () => {
    // Prepare
    const pages = [
      'README.md',
      'SECURITY.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => join('docs', name)),
    ];

    // Act: a version followed by "or" (`Node.js 20.6 or newer`), across line breaks
    const statements = pages.flatMap((path) =>
      [
        ...page(path)
          .replace(/\s+/g, ' ')
          .matchAll(/Node(?:\.js)? \d+(?:\.\d+)+\+? or\b/g),
      ].map(([text]) => `${path}: ${text}`),
    );

    // Assess
    expect(statements).toEqual([`README.md: Node.js ${lowest()} or`]);
  });
});

/** The lowest version engines admit, as the README writes it: `20.19`. */
function lowest(): string {
  return /^\^(\d+\.\d+)/.exec(engines)?.[1] ?? 'none';
}
