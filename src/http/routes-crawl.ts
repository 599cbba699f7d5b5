import formbody from '@fastify/formbody';
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { TokenService } from '../accounts/index.ts';
import type { Config } from '../config.ts';
import { type CrawlService, jobRecord, parseDownloadQuery } from '../crawl/index.ts';
import { InvalidParameterError } from '../errors.ts';
import type { StoredCrawlJob } from '../storage/index.ts';
import { tokenSecretOf } from './auth.ts';
import { type RoutePlugin, routeScope } from './route-scope.ts';

export interface CrawlRoutesOptions {
  readonly config: Config;
  readonly tokens: TokenService;
  readonly crawl: CrawlService;
}

const errorBody = Type.Object({
  errorCode: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
});

const jobsResponse = Type.Object(
  {
    response: Type.Optional(Type.String()),
    jobs: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { description: 'The job records concerned (docs/api.md#job-record).' },
);

const flag = (description: string) => Type.Optional(Type.String({ enum: ['0', '1'], description }));

const controlQuerystring = Type.Object({
  token: Type.Optional(Type.String({ description: "The caller's token (or `Authorization: Bearer`)." })),
  name: Type.Optional(
    Type.String({ description: 'Name of a bulk job: its details, or the job to control.' }),
  ),
  pause: flag('`1` pauses the job, `0` resumes it.'),
  restart: flag('`1` erases its data and processes every URL again.'),
  delete: flag('`1` deletes the job and all its data.'),
});

const creationBody = Type.Object(
  {},
  {
    description:
      'Form-encoded or JSON. Fields: token, name, urls (space-separated), apiUrl, customHeaders (repeatable Name:Value), ' +
      'notifyWebhook, notifyEmail, obeyRobots (0/1, default 1), repeat (days), maxRounds (default 0 = one round, -1 = unlimited), ' +
      'pageProcessPattern (||-separated substrings), crawlDelay (seconds per host, default 0.25), kgIngest (0/1).',
    additionalProperties: true,
  },
);

const downloadQuerystring = Type.Object({
  token: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  format: Type.Optional(Type.String({ enum: ['json', 'csv'], description: 'Default json.' })),
  type: Type.Optional(
    Type.String({
      enum: ['urls'],
      description: 'Absent: the extracted objects; `urls`: the per-URL report.',
    }),
  ),
});

/** The one action a control request asks for, validated. */
type ControlAction = 'pause' | 'resume' | 'restart' | 'delete' | undefined;

function controlAction(query: Record<string, unknown>): ControlAction {
  const asked: ControlAction[] = [];
  if (query.pause === '1') asked.push('pause');
  if (query.pause === '0') asked.push('resume');
  if (query.restart === '1') asked.push('restart');
  if (query.delete === '1') asked.push('delete');
  if (asked.length > 1) {
    throw new InvalidParameterError('pause', 'Give only one of pause, restart and delete per request.');
  }
  return asked[0];
}

/** Scheme, host and port the request came through: the base of download links. */
function publicBaseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * Area C: `POST /v3/bulk` (creation, docs/api.md#creating-a-job), `GET /v3/bulk` (list, details and
 * control, docs/api.md#controlling-jobs) and `GET /v3/bulk/data` (downloads). Form-encoded bodies
 * are parsed in this plugin's scope only.
 */
export const crawlRoutes: RoutePlugin<CrawlRoutesOptions> = async (app, options) => {
  const { crawl, tokens, config } = options;
  // A job's creation form may carry the token as a field (the reference service's clients do).
  routeScope(app, { area: 'BC', tags: ['bulk extract'], auth: tokens, tokenInBody: true });
  await app.register(formbody, { bodyLimit: config.limits.bulkBodyBytes });
  const records = (request: FastifyRequest, jobs: StoredCrawlJob[]) => {
    const token = tokenSecretOf(request, { bodyField: true });
    const now = Date.now();
    return jobs.map((job) => jobRecord(job, { now, token }));
  };

  // No query schema (fields in the query are checked with the body's), so typed here.
  app.post<{ Querystring: Record<string, unknown>; Body: Static<typeof creationBody> }>(
    '/v3/bulk',
    {
      bodyLimit: config.limits.bulkBodyBytes,
      schema: {
        operationId: 'createBulkExtractJob',
        summary: 'Create a bulk extract job',
        body: creationBody,
        response: { 200: jobsResponse, 400: errorBody, 401: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      const body = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new InvalidParameterError('body', 'The body must be a form or a JSON object of job fields.');
      }
      // Fields may also come in the query string; the body wins.
      const fields = { ...request.query, ...body };
      const job = await crawl.create(request.account.id, fields, publicBaseUrl(request));
      return { response: 'Successfully added urls for spidering.', jobs: records(request, [job]) };
    },
  );

  app.get(
    '/v3/bulk',
    {
      schema: {
        operationId: 'bulkExtractJobs',
        summary: "List the token's bulk extract jobs, show one, or pause, resume, restart or delete it",
        querystring: controlQuerystring,
        response: { 200: jobsResponse, 400: errorBody, 401: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      const query = request.query;
      const tokenId = request.account.id;
      const action = controlAction(query);
      const named = query.name !== undefined && query.name !== '';
      if (!named) {
        if (action)
          throw new InvalidParameterError('name', `Invalid parameter 'name': is required to ${action} a job`);
        return { jobs: records(request, await crawl.list(tokenId)) };
      }
      switch (action) {
        case 'pause':
          return { jobs: records(request, [await crawl.pause(tokenId, query.name)]) };
        case 'resume':
          return { jobs: records(request, [await crawl.resume(tokenId, query.name)]) };
        case 'restart':
          return { jobs: records(request, [await crawl.restart(tokenId, query.name)]) };
        case 'delete':
          await crawl.delete(tokenId, query.name);
          return { response: 'Successfully deleted job.', jobs: [] };
        default:
          return { jobs: records(request, [await crawl.get(tokenId, query.name)]) };
      }
    },
  );

  app.get(
    '/v3/bulk/data',
    {
      schema: {
        operationId: 'bulkExtractJobData',
        summary: "Download a bulk extract job's objects (JSON or CSV) or its per-URL report",
        querystring: downloadQuerystring,
      },
    },
    async (request, reply) => {
      const query = request.query;
      const options = parseDownloadQuery(query);
      const { job, stream } = await crawl.download(request.account.id, query.name, options);
      const what = options.type === 'urls' ? 'urls' : 'data';
      reply
        .type(options.format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${job.name}_${what}.${options.format}"`);
      return reply.send(stream);
    },
  );
};
