import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

const PAGE_DIR = new URL('./page/', import.meta.url);

/** A file the page needs, ready to serve. */
export interface PageAsset {
  readonly contentType: string;
  readonly body: string;
}

let cached: Promise<ReadonlyMap<string, PageAsset>> | undefined;

/**
 * The page's three files: `index.html`, `inspector.css` and `inspector.js` (the page's
 * TypeScript bundled by esbuild, once per run, in memory). Nothing is fetched from elsewhere.
 */
export function pageAssets(): Promise<ReadonlyMap<string, PageAsset>> {
  cached ??= loadAssets();
  return cached;
}

async function loadAssets(): Promise<ReadonlyMap<string, PageAsset>> {
  const [html, css, bundle] = await Promise.all([
    readFile(new URL('index.html', PAGE_DIR), 'utf8'),
    readFile(new URL('inspector.css', PAGE_DIR), 'utf8'),
    build({
      entryPoints: [new URL('inspector-page.ts', PAGE_DIR).pathname],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      minify: true,
      logLevel: 'silent',
    }),
  ]);
  const js = bundle.outputFiles[0]?.text ?? '';
  return new Map([
    ['index.html', { contentType: 'text/html; charset=utf-8', body: html }],
    ['inspector.css', { contentType: 'text/css; charset=utf-8', body: css }],
    ['inspector.js', { contentType: 'text/javascript; charset=utf-8', body: js }],
  ]);
}
