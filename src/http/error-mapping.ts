import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidParameterError, PayloadTooLargeError, QuarryError, UriTooLongError } from '../errors.ts';

/**
 * Which body shape a route's errors use: area A (`/kg/v3`) uses `{code, message, error}` and a
 * dedicated 401 body; areas B and C (`/v3`) use `{errorCode, error}` (docs/api.md#errors).
 */
export type ErrorArea = 'A' | 'BC';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error body dialect of the route; `A` when unset. */
    area?: ErrorArea;
  }
}

function areaOf(request: FastifyRequest): ErrorArea {
  if (request.routeOptions?.config?.area) return request.routeOptions.config.area;
  return /^\/v3(\/|\?|$)/.test(request.url) ? 'BC' : 'A';
}

/** The response body for `error` in the dialect of `area`. */
export function errorBody(error: QuarryError, area: ErrorArea, requestId: string): Record<string, unknown> {
  if (area === 'BC') {
    // Areas B and C word every token problem as the reference service does (docs/api.md#errors).
    const message = error.status === 401 ? 'Not authorized API token.' : error.message;
    return { errorCode: error.errorCode, error: message };
  }
  if (error.status === 401) return { code: 401, message: error.message, requestId };
  return { code: error.status, message: error.message, error: true, ...error.extra };
}

/** Turns an AJV validation failure into a 400 that names the offending parameter. */
function fromValidation(error: FastifyError): InvalidParameterError {
  const first = error.validation?.[0];
  const context = error.validationContext ?? 'request';
  let parameter = context === 'querystring' || context === 'params' ? 'query' : context;
  if (first) {
    const missing = (first.params as { missingProperty?: string }).missingProperty;
    const additional = (first.params as { additionalProperty?: string }).additionalProperty;
    const pathParts = first.instancePath.split('/').filter(Boolean);
    if (missing) pathParts.push(missing);
    if (additional) pathParts.push(additional);
    if (pathParts.length > 0) parameter = pathParts.join('.');
    const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
    let message = additional ? 'is not a known parameter' : (first.message ?? 'is invalid');
    if (missing) message = 'is required';
    if (allowed) message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
    return new InvalidParameterError(parameter, `Invalid parameter '${parameter}': ${message}`);
  }
  return new InvalidParameterError(parameter, `Invalid ${context}: ${error.message}`);
}

/** Maps any thrown error to a QuarryError, or `undefined` when it is a bug (becomes a 500). */
export function toQuarryError(error: unknown): QuarryError | undefined {
  if (error instanceof QuarryError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) return fromValidation(fastifyError);
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError('Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new InvalidParameterError('Content-Type', `Unsupported Content-Type: ${fastifyError.message}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidParameterError('body', 'Request body is empty but Content-Type is application/json');
    case 'FST_ERR_BAD_URL':
      return new InvalidParameterError('url', 'The URL path is malformed (bad percent-encoding)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new UriTooLongError('A path parameter is longer than 500 characters');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new InvalidParameterError('Content-Length', 'Content-Length does not match the body');
    default:
      break;
  }
  // JSON syntax errors from the body parser carry statusCode 400.
  if (fastifyError?.statusCode === 400 && error instanceof SyntaxError) {
    return new InvalidParameterError('body', `Request body is not valid JSON: ${fastifyError.message}`);
  }
  if (fastifyError?.statusCode === 400) {
    return new InvalidParameterError('request', fastifyError.message);
  }
  if (fastifyError?.statusCode === 413) return new PayloadTooLargeError('Request body is too large');
  return undefined;
}

/** Sends the error body for `error` in the route's dialect. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: QuarryError): FastifyReply {
  return reply
    .code(error.status)
    .type('application/json')
    .send(errorBody(error, areaOf(request), request.id));
}

/**
 * Fastify's `frameworkErrors`: requests the router refuses (a malformed or over-long path)
 * answered in our body shape, not Fastify's, and without echoing the path.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const mapped = toQuarryError(error) ?? new InvalidParameterError('url', 'The request URL is refused');
  sendError(request, reply, mapped);
}

/** Installs the one error handler and the not-found handler of the app. */
export function installErrorMapping(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const mapped = toQuarryError(error);
    if (mapped) {
      if (mapped.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, mapped);
    }
    request.log.error({ err: error, url: request.url }, 'unexpected error');
    const area = areaOf(request);
    const body =
      area === 'BC'
        ? { errorCode: 500, error: 'Internal server error' }
        : { code: 500, message: 'Internal server error', error: true, requestId: request.id };
    return reply.code(500).type('application/json').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const area = areaOf(request);
    const message = `Route ${request.method} ${request.url.split('?')[0]} not found`;
    const body = area === 'BC' ? { errorCode: 404, error: message } : { code: 404, message, error: true };
    return reply.code(404).type('application/json').send(body);
  });
}
