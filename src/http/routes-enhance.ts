import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { type EnhanceService, parseEnhanceQuery, type QuerySource } from '../enhance/index.ts';
import type { TokenService } from '../accounts/index.ts';
import { authenticate } from './auth.ts';
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
export async function enhanceRoutes(app: FastifyInstance, options: EnhanceRoutesOptions): Promise<void> {
  const { enhance, tokens, config } = options;
  const preHandler = authenticate(tokens);
  const security: Array<Record<string, string[]>> = [{ tokenscheme: [] }, { bearer: [] }];

  const run = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: Record<string, unknown>,
    source: QuerySource,
  ) => {
    const parsed = parseEnhanceQuery(input, source, { maxSize: config.limits.maxSize });
    const context = { tokenId: request.account.id, queryCtx: submitted(input) };
    const answer = await enhance.respond(source === 'combine' ? 'combine' : 'enhance', parsed, context);
    // An answering thread wrote the JSON already: sent as it is, not serialized again.
    if ('json' in answer) return reply.type('application/json; charset=utf-8').send(answer.json);
    return answer;
  };

  app.get(
    '/kg/v3/enhance',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'enhance',
        summary: 'Find the Person or Organization a partial query describes',
        tags: ['enhance'],
        security,
        querystring: enhanceQuerystring,
        response: { 200: enhanceResponse, ...enhanceErrorResponses },
      },
    },
    async (request, reply) => run(request, reply, request.query as Record<string, unknown>, 'get'),
  );

  app.post(
    '/kg/v3/enhance',
    {
      config: { area: 'A' },
      preHandler,
      bodyLimit: config.limits.enhanceBodyBytes,
      schema: {
        operationId: 'enhancePost',
        summary: 'Enhance with the query as a JSON body',
        tags: ['enhance'],
        security,
        body: enhanceBody,
        response: { 200: enhanceResponse, ...enhanceErrorResponses },
      },
    },
    async (request, reply) => {
      // Options may also come in the query string (e.g. `?token=...&size=3`); the body wins.
      const { token: _token, ...queryOptions } = request.query as Record<string, unknown>;
      return run(request, reply, { ...queryOptions, ...(request.body as Record<string, unknown>) }, 'post');
    },
  );

  app.get(
    '/kg/v3/enhance/combine',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'combine',
        summary: 'Enhance a Person and return their current employer too',
        tags: ['enhance'],
        security,
        querystring: combineQuerystring,
        response: { 200: enhanceResponse, ...enhanceErrorResponses },
      },
    },
    async (request, reply) => run(request, reply, request.query as Record<string, unknown>, 'combine'),
  );
}
