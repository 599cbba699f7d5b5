import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import type { TokenService } from '../accounts/index.ts';
import { authenticate } from './auth.ts';
import type { ErrorArea } from './error-mapping.ts';

/**
 * A typed route plugin: `request.params`, `request.query` and `request.body` take the types of
 * the route's TypeBox schemas, so handlers need no casts.
 */
export type RoutePlugin<Options extends object = Record<never, never>> = FastifyPluginAsyncTypebox<Options>;

/** The OpenAPI security of a route that takes a token (query parameter or bearer header). */
export const TOKEN_SECURITY: Array<Record<string, string[]>> = [{ tokenscheme: [] }, { bearer: [] }];

/** What every route of a scope shares. */
export interface ScopeSettings {
  /** Error body dialect of its routes (`error-mapping.ts`). */
  readonly area: ErrorArea;
  /** OpenAPI tags of its routes (a route's own `schema.tags` wins). */
  readonly tags?: readonly string[];
  /** When set, every route authenticates its token first (401) and is documented as secured. */
  readonly auth?: TokenService;
  /** With `auth`: the token may also come as a `token` field of a form or JSON body. */
  readonly tokenInBody?: boolean;
}

/**
 * Sets area, authentication, tags and security once for every route registered in `app`'s
 * scope (an encapsulated plugin and its children), instead of on each route. A route can still
 * set its own `config`, `schema` entries and `preHandler`s: they come after the scope's.
 */
export function routeScope(app: FastifyInstance, settings: ScopeSettings): void {
  const authenticateToken = settings.auth
    ? authenticate(settings.auth, { bodyField: settings.tokenInBody === true })
    : undefined;
  app.addHook('onRoute', (route) => {
    route.config = { area: settings.area, ...route.config };
    if (route.schema?.hide) return;
    route.schema = {
      ...(settings.tags ? { tags: [...settings.tags] } : {}),
      ...(authenticateToken ? { security: TOKEN_SECURITY } : {}),
      ...route.schema,
    };
    if (authenticateToken) {
      const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
      route.preHandler = [authenticateToken as preHandlerHookHandler, ...own];
    }
  });
}
