import type { FastifyInstance } from 'fastify';
import { InvalidParameterError } from '../errors.ts';
import { jsonNestedDeeperThan, MAX_JSON_DEPTH } from '../json-depth.ts';

/** The 400 for a body nested too deeply. */
export function tooDeepError(parameter = 'body'): InvalidParameterError {
  return new InvalidParameterError(
    parameter,
    `Invalid parameter '${parameter}': JSON nested deeper than ${MAX_JSON_DEPTH} levels is refused`,
  );
}

/**
 * Replaces Fastify's JSON body parser with the same parser (prototype poisoning refused) behind
 * a nesting check, and words both refusals as a 400 naming the problem: a `__proto__` key was
 * reported as "not valid JSON".
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonNestedDeeperThan(text, MAX_JSON_DEPTH)) {
      done(tooDeepError(), undefined);
      return;
    }
    parse(request, text, (error, value) => {
      if (!error) {
        done(null, value);
        return;
      }
      // Fastify's parser says "not valid JSON" for both refusals; tell which it was.
      let poisoned = false;
      try {
        JSON.parse(text);
        poisoned = text.trim() !== '';
      } catch {}
      done(
        poisoned
          ? new InvalidParameterError(
              'body',
              "Invalid parameter 'body': a '__proto__' or 'constructor.prototype' key is refused",
            )
          : error,
        undefined,
      );
    });
  });
}
