import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type ConsoleBundle, consoleBundle, etagOf } from '../console/index.ts';
import { NotFoundError } from '../errors.ts';
import { type RoutePlugin, routeScope } from './route-scope.ts';

/**
 * What the console's page may do: its own scripts, styles and API only (no inline script, no
 * other origin), never framed; no referrer, since download links carry the token.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Answers 304 when the browser already holds this version. */
function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('ETag', etag);
  if (request.headers['if-none-match'] !== etag) return false;
  reply.code(304).send();
  return true;
}

async function sendShell(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const bundle: ConsoleBundle = await consoleBundle();
  reply.headers(SECURITY_HEADERS).header('Cache-Control', 'no-cache');
  if (notModified(request, reply, etagOf(bundle.html))) return reply;
  return reply.type('text/html; charset=utf-8').send(bundle.html);
}

/**
 * `/console` (docs/console.md): the web console's page for every path under it (the app routes in
 * the browser, so `/console/entity/<id>` can be linked to) and its hashed assets, immutable.
 * No token here: the page asks for one and calls the public API with it.
 */
export const consoleRoutes: RoutePlugin = async (app) => {
  routeScope(app, { area: 'A' });
  const page = { schema: { hide: true } } as const;
  app.get('/console', page, sendShell);
  app.get('/console/*', page, sendShell);
  app.get(
    '/console/assets/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String() }) } },
    async (request, reply) => {
      const { file } = request.params;
      const asset = (await consoleBundle()).assets.get(file);
      if (!asset) throw new NotFoundError(`No console asset named "${file}"`);
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      reply.header('X-Content-Type-Options', 'nosniff');
      if (notModified(request, reply, etagOf(asset.body))) return reply;
      return reply.type(asset.contentType).send(asset.body);
    },
  );
  app.addHook('onListen', async () => {
    // Build in the background once the server listens (not for `inject()` in tests), so the
    // first visitor does not wait.
    consoleBundle().then(
      (bundle) => app.log.info({ ms: bundle.buildMs }, 'console built'),
      (error: unknown) => app.log.error({ err: error }, 'console build failed'),
    );
  });
};
