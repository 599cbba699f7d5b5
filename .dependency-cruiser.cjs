/**
 * The layer check of `npm run lint` (docs/architecture.md#folders): no import cycle anywhere in
 * src/, and the pure folders (kg/, match/, export/) import no storage, HTTP or threads. Tests
 * are left out: they talk to real stores and servers on purpose.
 *
 * TypeScript 7 has no JavaScript API, so the sources are parsed with swc; type-only imports
 * count too (match/ declares the ports it needs instead of importing the store's types).
 *
 * There is no baseline of tolerated violations: the last ones (type-only cycles between a folder's
 * index and its files, match/training's store types, the vocabulary share's threads) were fixed
 * by moving the shared type or declaring the port in the pure folder.
 */
const PURE = '^src/(kg|match|export)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Import cycles make a folder impossible to understand, test or move alone.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'pure-no-storage-http',
      severity: 'error',
      comment:
        'kg/, match/ and export/ take plain data and return plain data; storage and HTTP reach them through interfaces they declare.',
      from: { path: PURE },
      to: { path: ['^src/(storage|http|runtime\\.ts|main\\.ts|cli)(/|$)'] },
    },
    {
      name: 'pure-no-threads',
      severity: 'error',
      comment: 'Threads are started and fed by the layers above the pure folders.',
      from: { path: PURE },
      to: { path: ['^src/threads/', '^worker_threads$'] },
    },
    {
      name: 'pure-no-network',
      severity: 'error',
      comment: 'No HTTP server or client in the pure folders.',
      from: { path: PURE },
      to: { path: ['^(node:)?(http|https|http2|net|dgram)$', '(^|/)node_modules/(fastify|undici|@fastify/)'] },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.test\\.ts$', '^test/', '^bench/'] },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
