import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TokenService } from '../accounts/index.ts';
import type { Config } from '../config.ts';
import { parseEntityType } from '../enhance/index.ts';
import { InvalidParameterError } from '../errors.ts';
import { ENTITY_TYPES, type EntityType } from '../kg/index.ts';
import {
  extendResponse,
  type ManifestLinks,
  MAX_SUGGEST,
  manifestOf,
  parseExtendRequest,
  previewHtml,
  proposeProperties,
  type ReconcileService,
  suggestProperties,
  suggestTypes,
} from '../reconcile/index.ts';
import { tokenSecretOf } from './auth.ts';
import { type RoutePlugin, routeScope } from './route-scope.ts';

export interface ReconcileRoutesOptions {
  readonly config: Config;
  readonly tokens: TokenService;
  readonly reconcile: ReconcileService;
}

/** A JSONP callback: a JavaScript name, dotted paths allowed (`jQuery123_456`, `a.b`). */
const CALLBACK = /^[A-Za-z_$][\w$]{0,127}(?:\.[A-Za-z_$][\w$]{0,127}){0,4}$/;

const text = (description: string) => Type.Optional(Type.String({ description }));
const callback = text('JSONP: the answer is wrapped in a call of this function (GET only).');
/** Clients add parameters of their own (jQuery's `_`, suggest's `cursor`): they are ignored. */
const open = { additionalProperties: true } as const;
const anyJson = Type.Unknown({ description: 'See docs/reconcile.md.' });

const rootQuery = Type.Object(
  {
    queries: text('JSON text of a batch of queries (0.2 reconciliation-query-batch).'),
    extend: text('JSON text of a data extension query {ids, properties}.'),
    token: text('The token (needed with `queries` and `extend`).'),
    callback,
  },
  open,
);
const rootBody = Type.Object(
  {
    queries: Type.Optional(Type.Unknown({ description: 'A batch of queries, as JSON text or an object.' })),
    extend: Type.Optional(
      Type.Unknown({ description: 'A data extension query, as JSON text or an object.' }),
    ),
    token: text('The token, when not in the query string.'),
  },
  open,
);
const prefixQuery = Type.Object({ prefix: text('What the person has typed.'), callback }, open);
const entitySuggestQuery = Type.Object(
  {
    prefix: text('What the person has typed.'),
    type: text('Organization or Person (default: both).'),
    limit: text(`Most entities returned (1–${MAX_SUGGEST}, default 10).`),
    callback,
  },
  open,
);
const idQuery = Type.Object({ id: Type.String({ description: 'An entity id.' }), callback }, open);
const proposalQuery = Type.Object(
  {
    type: Type.String({ description: 'Organization or Person.' }),
    limit: text('Most properties returned.'),
    callback,
  },
  open,
);

/** Scheme, host and port the client used, and the token it sent: the manifest's URLs. */
function linksOf(request: FastifyRequest): ManifestLinks {
  const token = tokenSecretOf(request);
  return { origin: `${request.protocol}://${request.host}`, ...(token ? { token } : {}) };
}

/** Refuses a bad JSONP callback before any work (and any charge) is done. */
async function checkCallback(request: FastifyRequest): Promise<void> {
  const value = (request.query as Record<string, unknown> | undefined)?.callback;
  if (value === undefined) return;
  if (typeof value !== 'string' || !CALLBACK.test(value)) {
    throw new InvalidParameterError(
      'callback',
      "Invalid parameter 'callback': must be a JavaScript function name (letters, digits, _, $ and dots)",
    );
  }
}

/** Sends `body` as JSON, or as a JSONP call when a GET asked for one. */
function answer(request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply {
  const name = (request.query as Record<string, unknown> | undefined)?.callback;
  // The service is meant to be read from any page (OpenRefine's runs in the browser).
  reply.header('access-control-allow-origin', '*');
  if (request.method === 'GET' && typeof name === 'string') {
    // `/**/` keeps the answer from starting with bytes a plugin could read as another format.
    return reply
      .type('application/javascript; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .send(`/**/${name}(${JSON.stringify(body)});`);
  }
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

function suggestLimit(value: string | undefined): number {
  if (value === undefined || value === '') return 10;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SUGGEST) {
    throw new InvalidParameterError(
      'limit',
      `Invalid parameter 'limit': must be an integer from 1 to ${MAX_SUGGEST}`,
    );
  }
  return n;
}

function typesOf(value: string | undefined): EntityType[] {
  const type = parseEntityType(value, { required: false });
  return type ? [type] : [...ENTITY_TYPES];
}

/**
 * The reconciliation service (docs/reconcile.md): its manifest, suggest over types and
 * properties and the property proposals describe the schema and need no token; queries, data
 * extension, entity suggest, flyouts and previews read the graph and need one (in the URL:
 * OpenRefine sends no headers).
 */
export const reconcileRoutes: RoutePlugin<ReconcileRoutesOptions> = async (app, options) => {
  routeScope(app, { area: 'A', tags: ['reconcile'] });
  await app.register(formbody, { bodyLimit: options.config.limits.enhanceBodyBytes });
  app.addHook('preValidation', checkCallback);
  await app.register(serviceRoutes, options);
  await app.register(schemaRoutes);
  await app.register(entityRoutes, options);
};

/** `GET|POST /reconcile`: the manifest, or the answer to `queries` or `extend`. */
const serviceRoutes: RoutePlugin<ReconcileRoutesOptions> = async (app, { tokens, reconcile }) => {
  const serve = async (request: FastifyRequest, reply: FastifyReply, input: Record<string, unknown>) => {
    if (input.queries === undefined && input.extend === undefined) {
      return answer(request, reply, manifestOf(linksOf(request)));
    }
    request.account = await tokens.authenticate(tokenSecretOf(request, { bodyField: true }));
    if (input.queries !== undefined) {
      return answer(request, reply, await reconcile.reconcile(input.queries, request.account.id));
    }
    const extend = parseExtendRequest(input.extend);
    return answer(request, reply, extendResponse(extend, reconcile.entities(extend.ids)));
  };
  app.get(
    '/reconcile',
    {
      schema: {
        operationId: 'reconcile',
        summary: 'Reconciliation service: manifest, or the answer to `queries` or `extend`',
        querystring: rootQuery,
        response: { 200: anyJson },
      },
    },
    async (request, reply) => serve(request, reply, request.query),
  );
  app.post(
    '/reconcile',
    {
      schema: {
        operationId: 'reconcilePost',
        summary: 'Reconciliation service: `queries` or `extend` as a form or JSON body',
        body: rootBody,
        response: { 200: anyJson },
      },
    },
    async (request, reply) => {
      const { token: _token, callback: _callback, ...query } = request.query as Record<string, unknown>;
      return serve(request, reply, { ...query, ...request.body });
    },
  );
};

/** Suggest over types and properties, and property proposals: the schema, public. */
const schemaRoutes: RoutePlugin = async (app) => {
  app.get(
    '/reconcile/suggest/type',
    {
      schema: {
        operationId: 'reconcileSuggestType',
        summary: 'Types starting with `prefix`',
        querystring: prefixQuery,
      },
    },
    async (request, reply) => answer(request, reply, { result: suggestTypes(request.query.prefix ?? '') }),
  );
  app.get(
    '/reconcile/suggest/property',
    {
      schema: {
        operationId: 'reconcileSuggestProperty',
        summary: 'Properties starting with `prefix`',
        querystring: prefixQuery,
      },
    },
    async (request, reply) =>
      answer(request, reply, { result: suggestProperties(request.query.prefix ?? '') }),
  );
  app.get(
    '/reconcile/properties',
    {
      schema: {
        operationId: 'reconcileProperties',
        summary: 'Properties data extension can fetch for a type',
        querystring: proposalQuery,
      },
    },
    async (request, reply) => {
      const type = parseEntityType(request.query.type, { required: true }) as EntityType;
      const limit = request.query.limit === undefined ? undefined : suggestLimit(request.query.limit);
      return answer(request, reply, proposeProperties(type, limit));
    },
  );
};

/** Entity suggest, flyouts and previews: they read the graph, so they need a token. */
const entityRoutes: RoutePlugin<ReconcileRoutesOptions> = async (app, { tokens, reconcile }) => {
  routeScope(app, { area: 'A', tags: ['reconcile'], auth: tokens });
  app.get(
    '/reconcile/suggest/entity',
    {
      schema: {
        operationId: 'reconcileSuggestEntity',
        summary: 'Entities whose name starts with `prefix`',
        querystring: entitySuggestQuery,
      },
    },
    async (request, reply) => {
      const { prefix = '', type, limit } = request.query;
      const result = await reconcile.suggestEntities(prefix, typesOf(type), suggestLimit(limit));
      return answer(request, reply, { result });
    },
  );
  app.get(
    '/reconcile/flyout/entity',
    {
      schema: {
        operationId: 'reconcileFlyout',
        summary: 'The preview card of an entity, as JSON',
        querystring: idQuery,
      },
    },
    async (request, reply) => {
      const stored = reconcile.entity(request.query.id);
      const html = previewHtml(
        stored.doc,
        `${linksOf(request).origin}/console/entity/${encodeURIComponent(stored.id)}`,
      );
      return answer(request, reply, { id: stored.id, html });
    },
  );
  app.get(
    '/reconcile/preview',
    {
      schema: {
        operationId: 'reconcilePreview',
        summary: 'The preview card of an entity (HTML)',
        querystring: idQuery,
      },
    },
    async (request, reply) => {
      const stored = reconcile.entity(request.query.id);
      const html = previewHtml(
        stored.doc,
        `${linksOf(request).origin}/console/entity/${encodeURIComponent(stored.id)}`,
      );
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(html);
    },
  );
};
