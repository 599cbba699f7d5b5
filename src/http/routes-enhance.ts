import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { TokenService } from '../accounts/index.ts';
import type { Config } from '../config.ts';
import { type EnhanceService, parseEnhanceQuery, type QuerySource } from '../enhance/index.ts';
import { type RoutePlugin, routeScope } from './route-scope.ts';
import {
  combineQuerystring,
  enhanceBody,
  enhanceErrorResponses,
  enhanceQuerystring,
  enhanceResponse,
} from './schemas-enhance.ts';

export interface EnhanceRoutesOptions {
  readonly config: Config;
  readonly tokens: TokenService;
  readonly enhance: EnhanceService;
}

/** The submitted parameters echoed in `request_ctx.query_ctx` (never the token). */
function submitted(input: Record<string, unknown>): Record<string, unknown> {
  const { token: _token, ...rest } = input;
  return rest;
}

/**
 * Area A: `GET`/`POST /kg/v3/enhance` and `GET /kg/v3/enhance/combine`
 * (docs/api.md#area-a-enhance).
 */
export const enhanceRoutes: RoutePlugin<EnhanceRoutesOptions> = async (app, options) => {
  const { enhance, tokens, config } = options;
  routeScope(app, { area: 'A', tags: ['enhance'], auth: tokens });

  const run = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: Record<string, unknown>,
    source: QuerySource,
  ) => {
    const parsed = parseEnhanceQuery(input, source, { maxSize: config.limits.maxSize });
    const context = { tokenId: request.account.id, queryCtx: submitted(input) };
    const answer = await enhance.respond(source === 'combine' ? 'combine' : 'enhance', parsed, context);
    // An answering thread wrote the JSON already (UTF-8 bytes): sent as they are, not serialized
    // nor encoded again.
    if ('body' in answer) return reply.type('application/json; charset=utf-8').send(answer.body);
    return answer;
  };

  app.get(
    '/kg/v3/enhance',
    {
      schema: {
        operationId: 'enhance',
        summary: 'Find the Person or Organization a partial query describes',
        querystring: enhanceQuerystring,
        response: { 200: enhanceResponse, ...enhanceErrorResponses },
      },
    },
    // Not an async function: `run`'s promise is the handler's, without a second one around it.
    (request, reply) => run(request, reply, request.query, 'get'),
  );

  // No query schema (options in the query are checked with the body's), so typed here.
  app.post<{ Querystring: Record<string, unknown>; Body: Static<typeof enhanceBody> }>(
    '/kg/v3/enhance',
    {
      bodyLimit: config.limits.enhanceBodyBytes,
      schema: {
        operationId: 'enhancePost',
        summary: 'Enhance with the query as a JSON body',
        body: enhanceBody,
        response: { 200: enhanceResponse, ...enhanceErrorResponses },
      },
    },
    async (request, reply) => {
      // Options may also come in the query string (e.g. `?token=...&size=3`); the body wins.
      const { token: _token, ...queryOptions } = request.query;
      return run(request, reply, { ...queryOptions, ...request.body }, 'post');
    },
  );

  app.get(
    '/kg/v3/enhance/combine',
    {
      schema: {
        operationId: 'combine',
        summary: 'Enhance a Person and return their current employer too',
        querystring: combineQuerystring,
        response: { 200: enhanceResponse, ...enhanceErrorResponses },
      },
    },
    (request, reply) => run(request, reply, request.query, 'combine'),
  );
};
