import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenService } from '../accounts/index.ts';
import type { TokenRecord } from '../storage/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated token, set by `authenticate` on routes that require one. */
    account: TokenRecord;
  }
}

/**
 * The token secret sent with a request: the `token` query parameter (or a `token` field of a
 * form/JSON body where a route allows it) wins over `Authorization: Bearer`
 * (docs/api.md#authentication).
 */
export function tokenSecretOf(
  request: FastifyRequest,
  options: { bodyField?: boolean } = {},
): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.token;
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  if (Array.isArray(fromQuery) && typeof fromQuery[0] === 'string') return fromQuery[0];
  if (options.bodyField) {
    const body = request.body as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && !Array.isArray(body) && typeof body.token === 'string') {
      return body.token;
    }
  }
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * A preHandler that authenticates the request (401 on failure) and sets `request.account`. A
 * callback hook, not an async one: a token looked up recently is taken at once, without the
 * promises of a look-up.
 */
export function authenticate(tokens: TokenService, options: { bodyField?: boolean } = {}) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    let found: TokenRecord | Promise<TokenRecord>;
    try {
      found = tokens.lookUp(tokenSecretOf(request, options));
    } catch (error) {
      done(error as Error);
      return;
    }
    if (found instanceof Promise) {
      found.then((account) => {
        request.account = account;
        done();
      }, done);
      return;
    }
    request.account = found;
    done();
  };
}
