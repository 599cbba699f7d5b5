import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TokenService } from '../accounts/index.ts';
import { InvalidParameterError } from '../errors.ts';
import { BUILT_IN_APIS, DEFAULT_TIMEOUT_MS, type ExtractionService } from '../extract/index.ts';
import { type RoutePlugin, routeScope } from './route-scope.ts';

export interface ExtractRoutesOptions {
  readonly extraction: ExtractionService;
  readonly tokens: TokenService;
}

const HEADER_PREFIX = 'x-forward-';

/**
 * Headers the caller asks to forward to the page (`X-Forward-User-Agent: foo` sends
 * `User-Agent: foo`), as the reference extraction API does.
 */
export function forwardedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!name.startsWith(HEADER_PREFIX) || name.length === HEADER_PREFIX.length) continue;
    const forwarded = Array.isArray(value) ? value[0] : value;
    if (typeof forwarded === 'string') headers[name.slice(HEADER_PREFIX.length)] = forwarded;
  }
  return headers;
}

const Params = Type.Object({
  api: Type.String({
    description: `Extraction API: one of ${BUILT_IN_APIS.join(', ')}, or a Custom API name defined by the token's rule sets.`,
  }),
});

const Query = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The API token (or `Authorization: Bearer`).' })),
    url: Type.Optional(
      Type.String({
        description: 'The page URL (http/https). Required; with POST it names the posted page.',
      }),
    ),
    fields: Type.Optional(
      Type.String({
        description:
          'Comma-separated fields to return in each object (type, pageUrl and resolvedPageUrl always come); ' +
          'absent: every field.',
      }),
    ),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: DEFAULT_TIMEOUT_MS,
        description: `Milliseconds to wait for the page (default and maximum ${DEFAULT_TIMEOUT_MS}).`,
      }),
    ),
  },
  // Clients written for the reference API send more parameters (fields, discussion, paging...).
  { additionalProperties: true },
);

const DESCRIPTION = [
  'Extracts structured objects from a page: `analyze` detects the page type (article, product,',
  'organization, person or other) and runs that extractor; the others run their own. Every',
  'Custom API rule set of the token whose api matches and whose urlPattern matches the URL adds or',
  'overrides fields. Response: `{"request":{"pageUrl","api","version":3},"objects":[...]}`.',
  'Headers named `X-Forward-<Header>` are sent to the page as `<Header>`.',
  'Errors: 404 with errorCode 457 "Invalid API" for an unknown API; 400 for a missing/invalid url,',
  'a refused address (private network), a timeout, a page that is not HTML or could not be downloaded.',
].join(' ');

/** `GET /v3/:api?url=` and `POST /v3/:api?url=` (the page HTML as the body): extraction APIs. */
export const extractRoutes: RoutePlugin<ExtractRoutesOptions> = async (app, options) => {
  const { extraction, tokens } = options;
  routeScope(app, { area: 'BC', tags: ['extract'], auth: tokens });
  // Page HTML as a raw body: decoded later with the same charset sniffing as fetched pages.
  app.addContentTypeParser(
    ['text/html', 'application/xhtml+xml'],
    { parseAs: 'buffer' },
    (_request, body, done) => {
      done(null, body);
    },
  );

  app.get(
    '/v3/:api',
    {
      schema: {
        summary: 'Extract objects from a page URL',
        description: DESCRIPTION,
        params: Params,
        querystring: Query,
      },
    },
    async (request) => {
      const { api } = request.params;
      const query = request.query;
      return extraction.extract({
        tokenId: request.account.id,
        api,
        url: query.url ?? '',
        headers: forwardedHeaders(request),
        timeoutMs: query.timeout,
        fields: query.fields,
      });
    },
  );

  app.post(
    '/v3/:api',
    {
      schema: {
        summary: 'Extract objects from posted HTML',
        description: `${DESCRIPTION} POST: the body is the page (Content-Type text/html, or text/plain); url still names it.`,
        params: Params,
        querystring: Query,
      },
    },
    async (request) => {
      const { api } = request.params;
      const query = request.query;
      await extraction.checkApi(request.account.id, api);
      const body = request.body;
      if (!(Buffer.isBuffer(body) || typeof body === 'string') || body.length === 0) {
        throw new InvalidParameterError(
          'body',
          "Invalid parameter 'body': POST the page HTML as the body with Content-Type text/html",
        );
      }
      return extraction.extract({
        tokenId: request.account.id,
        api,
        url: query.url ?? '',
        html: body,
        contentType: request.headers['content-type'],
        fields: query.fields,
      });
    },
  );
};
