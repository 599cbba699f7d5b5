/**
 * The web console's assets (docs/console.md): the browser sources in `app/` (Preact, TSX) bundled
 * by esbuild in memory the first time they are asked for, so `npm ci && npm start` needs no build
 * step and nothing is fetched at run time. File names carry a hash of their content, so browsers
 * may cache them for ever; the HTML page that names them is never cached.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import * as esbuild from 'esbuild';

/** One file the console serves. */
export interface ConsoleAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

/** The built console: the HTML shell and its hashed assets by file name. */
export interface ConsoleBundle {
  /** The page every `/console` path answers (the app routes in the browser). */
  readonly html: string;
  /** `app-<hash>.js`, `app-<hash>.css`, `chunk-<hash>.js` and source maps, by file name. */
  readonly assets: ReadonlyMap<string, ConsoleAsset>;
  /** How long the build took, in milliseconds. */
  readonly buildMs: number;
}

const APP_DIR = path.join(import.meta.dirname, 'app');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The path under which the hashed assets are served. */
export const ASSET_PREFIX = '/console/assets/';

function shell(script: string, stylesheet: string | undefined): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Quarry console</title>',
    // No favicon to fetch (the browser would ask for /favicon.ico and log a 404).
    '<link rel="icon" href="data:,">',
    stylesheet ? `<link rel="stylesheet" href="${ASSET_PREFIX}${stylesheet}">` : '',
    `<script type="module" src="${ASSET_PREFIX}${script}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"><noscript>The Quarry console needs JavaScript.</noscript></div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Bundles `app/main.tsx` (and the CSS it imports) for current browsers. */
export async function buildConsole(): Promise<ConsoleBundle> {
  const started = performance.now();
  const result = await esbuild.build({
    entryPoints: { app: path.join(APP_DIR, 'main.tsx') },
    bundle: true,
    write: false,
    outdir: '/console-out',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    // Code loaded only when needed (the CSV parser) goes to chunks of its own.
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'silent',
    legalComments: 'none',
    // The sources live in a Node project: keep Node's globals out of the browser bundle.
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets = new Map<string, ConsoleAsset>();
  let script = '';
  let stylesheet: string | undefined;
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const extension = path.extname(name);
    assets.set(name, {
      body: Buffer.from(file.contents),
      contentType: CONTENT_TYPES[extension] ?? 'text/plain',
    });
    if (extension === '.js' && name.startsWith('app-')) script = name;
    if (extension === '.css') stylesheet = name;
  }
  if (!script) throw new Error('the console build produced no script');
  return { html: shell(script, stylesheet), assets, buildMs: Math.round(performance.now() - started) };
}

let building: Promise<ConsoleBundle> | undefined;

/**
 * The console bundle, built once per process on first use (every app built in a test process
 * shares it). A failed build is not kept: the next request tries again.
 */
export function consoleBundle(): Promise<ConsoleBundle> {
  if (!building) {
    building = buildConsole();
    building.catch(() => {
      building = undefined;
    });
  }
  return building;
}

/** A strong validator of the HTML shell (it changes when an asset does). */
export function etagOf(text: string | Buffer): string {
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;
}
