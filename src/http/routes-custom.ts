import { Type } from 'typebox';
import type { TokenService } from '../accounts/index.ts';
import { InvalidParameterError } from '../errors.ts';
import type { CustomApiService, ExtractionService } from '../extract/index.ts';
import { type RoutePlugin, routeScope } from './route-scope.ts';
import { forwardedHeaders } from './routes-extract.ts';

export interface CustomRoutesOptions {
  readonly customApis: CustomApiService;
  readonly extraction: ExtractionService;
  readonly tokens: TokenService;
}

const RULESET_DESCRIPTION = [
  'A rule set: `{"api": "/api/<name>", "urlPattern": "<regex>", "rules": [...], "testUrl"?, "prefilters"?,',
  '"xForwardHeaders"?}`. `api` names a built-in API to extend (article, product, organization, person,',
  'analyze), `all`, or a new API. `urlPattern` is searched anywhere in the page URL. A rule is',
  '`{"name", "selector" | "value", "filters"?, "rules"?}`; filters are `{"type":"attribute","args":["href"]}`,',
  '`{"type":"replace","args":[regex, replacement]}` and `{"type":"exclude","args":[selector, ...]}`; nested',
  '`rules` make the field an array of objects, one per element the selector matches. Selectors are CSS',
  'with the jsoup forms :contains/:containsOwn/:matches/:matchesOwn/:eq/:lt/:gt, [attr~=regex] and',
  '[^prefix]. `prefilters` are selectors of elements removed before any extraction.',
].join(' ');

const Body = Type.Unknown({ description: RULESET_DESCRIPTION });

/**
 * Custom API rule sets: `POST /v3/custom` (create/update, or replace all with an array),
 * `GET /v3/custom` (list), `DELETE /v3/custom` (delete one) and `POST /v3/custom/preview`
 * (run a rule set without saving it).
 */
export const customRoutes: RoutePlugin<CustomRoutesOptions> = async (app, options) => {
  const { customApis, extraction, tokens } = options;
  routeScope(app, { area: 'BC', tags: ['custom'], auth: tokens });

  app.post(
    '/v3/custom',
    {
      schema: {
        summary: 'Create or update a Custom API (or replace all of them)',
        description: [
          'Same api and urlPattern as an existing rule set: that rule set is updated (rules replaced',
          'wholesale) and keeps its hash. Otherwise a new rule set is created. A JSON array replaces all',
          'of the token\'s rule sets. Response: `{"hashes": [...]}`. Invalid input: 400 naming the field;',
          `nothing is stored. ${RULESET_DESCRIPTION}`,
        ].join(' '),
        body: Body,
      },
    },
    async (request) => customApis.save(request.account.id, request.body),
  );

  app.get(
    '/v3/custom',
    {
      schema: {
        summary: "List the token's Custom APIs",
        description:
          'A JSON array of rule sets in creation order, each with its `hash`. It can be posted back as is.',
      },
    },
    async (request) => customApis.list(request.account.id),
  );

  app.delete(
    '/v3/custom',
    {
      schema: {
        summary: 'Delete a Custom API',
        description:
          'Deletes the rule set identified by `{"api", "urlPattern"}` (JSON body, or query parameters of the same names). ' +
          'Response: `{"deleted": 1, "hashes": [<hash>]}`; 404 when the token has no such rule set.',
        body: Type.Optional(Type.Unknown()),
        querystring: Type.Object(
          { api: Type.Optional(Type.String()), urlPattern: Type.Optional(Type.String()) },
          { additionalProperties: true },
        ),
      },
    },
    async (request) => {
      const query = request.query;
      const body =
        request.body && typeof request.body === 'object'
          ? request.body
          : { api: query.api, urlPattern: query.urlPattern };
      const deleted = await customApis.delete(request.account.id, body);
      return { deleted: 1, hashes: [deleted.hash] };
    },
  );

  app.post(
    '/v3/custom/preview',
    {
      schema: {
        summary: 'Preview a rule set without saving it',
        description: [
          'Body: a rule set, plus optional `url` (page to use instead of `testUrl`) and `html` (the page',
          'itself; nothing is fetched). Runs the built-in extractor of the api (when built in) and this rule',
          'set only, and returns the extraction response with `urlPatternMatches`. Validation is that of',
          '`POST /v3/custom`. Nothing is stored.',
        ].join(' '),
        body: Body,
      },
    },
    async (request) => {
      const body = request.body;
      if (!body || typeof body !== 'object' || Array.isArray(body)) {
        throw new InvalidParameterError('body', "Invalid parameter 'body': must be a rule set object");
      }
      const { url, html, ...ruleset } = body as Record<string, unknown>;
      if (url !== undefined && typeof url !== 'string') {
        throw new InvalidParameterError('url', "Invalid parameter 'url': must be a URL string");
      }
      if (html !== undefined && typeof html !== 'string') {
        throw new InvalidParameterError('html', "Invalid parameter 'html': must be a string of HTML");
      }
      return extraction.preview({
        ruleset,
        url,
        html,
        headers: forwardedHeaders(request),
      });
    },
  );
};
