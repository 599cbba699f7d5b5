import { type Static, Type } from 'typebox';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenService } from '../accounts/index.ts';
import type { BulkExports, BulkService, DownloadAnswer } from '../bulk/index.ts';
import { type RoutePlugin, routeScope } from './route-scope.ts';
import {
  bulkErrorResponses,
  bulkjobIdParams,
  downloadBody,
  downloadQuerystring,
  generalError,
  reportParams,
  reportQuerystring,
  singleResultParams,
  statusEnvelope,
  statusRecordSchema,
  stopAnswer,
  submitAck,
  submitBody,
  submitQuerystring,
} from './schemas-bulk.ts';
import { validatorCompiler } from './validation.ts';

export interface BulkRoutesOptions {
  readonly tokens: TokenService;
  readonly bulk: BulkService;
  readonly bulkExports: BulkExports;
}

/** Sends a body the route's response schemas do not describe (a file, a stream, JSON text). */
function sendRaw(reply: FastifyReply, body: Readable | string | undefined): FastifyReply {
  return reply.send(body);
}

function sendDownload(reply: FastifyReply, answer: DownloadAnswer): FastifyReply {
  reply.code(answer.status);
  reply.header('Content-Type', answer.contentType);
  reply.header('X-Diffbot-ReportId', answer.reportId);
  if (answer.contentDisposition) reply.header('Content-Disposition', answer.contentDisposition);
  if (answer.contentLength !== undefined) reply.header('Content-Length', answer.contentLength);
  return sendRaw(reply, answer.body);
}

/** Submission, in its own context: its body (up to 200 MiB) is streamed, not parsed whole. */
const submitRoute: RoutePlugin<BulkRoutesOptions> = async (submit, { bulk }) => {
  submit.removeAllContentTypeParsers();
  submit.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  submit.post(
    '/kg/v3/enhance/bulk',
    {
      // The body schema documents the API; the body itself is validated as it streams.
      validatorCompiler: (context) => (context.httpPart === 'body' ? () => true : validatorCompiler(context)),
      schema: {
        operationId: 'submitBulkjob',
        summary: 'Submit a bulk enhance job: a JSON array of query records',
        querystring: submitQuerystring,
        body: submitBody,
        response: { 202: submitAck, ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      // The parser left the body unread (no preParsing hook wraps it). A body rejected part
      // way is left undestroyed, so the rest can be drained and the kept-alive connection
      // reused (`unread-body.ts`).
      const body = request.raw.iterator({ destroyOnReturn: false });
      const length = Number(request.headers['content-length']);
      const job = await bulk.submit(
        request.account.id,
        request.query,
        body,
        Number.isFinite(length) ? length : undefined,
      );
      return reply.code(202).send({ job_id: job.id, bulkjobId: job.id });
    },
  );
};

/** Downloads of a job's results, by GET (query) or POST (JSON body) (docs/api.md#downloads). */
const downloadRoutes: RoutePlugin<BulkRoutesOptions> = async (app, { bulkExports }) => {
  const download = async (
    request: FastifyRequest<{ Params: Static<typeof bulkjobIdParams> }>,
    reply: FastifyReply,
    input: Record<string, unknown>,
  ) => {
    const answer = await bulkExports.download(request.account.id, request.params.bulkjobId, input);
    return sendDownload(reply, answer);
  };
  const downloadResponses = { 201: generalError, ...bulkErrorResponses };

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId',
    {
      schema: {
        operationId: 'bulkjobResultGet',
        summary: 'Download the results of a bulk job (JSON Lines by default)',
        params: bulkjobIdParams,
        querystring: downloadQuerystring,
        response: downloadResponses,
      },
    },
    async (request, reply) => download(request, reply, request.query),
  );

  // No query schema (parameters in the query are checked with the body's), so typed here.
  app.post<{
    Params: Static<typeof bulkjobIdParams>;
    Querystring: Record<string, unknown>;
    Body: Static<typeof downloadBody>;
  }>(
    '/kg/v3/enhance/bulk/:bulkjobId',
    {
      // A POST without a body downloads with the defaults.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'bulkjobResultPost',
        summary: 'Download the results of a bulk job, parameters in a JSON body',
        params: bulkjobIdParams,
        body: downloadBody,
        response: downloadResponses,
      },
    },
    async (request, reply) => {
      // Parameters may also come in the query string; the body wins (docs/api.md#downloads).
      const { token: _token, ...query } = request.query;
      return download(request, reply, { ...query, ...request.body });
    },
  );
};

/** Area A bulk enhance jobs (docs/api.md#area-a-bulk-enhance-jobs, #compatibility, #limits). */
export const bulkRoutes: RoutePlugin<BulkRoutesOptions> = async (app, options) => {
  const { tokens, bulk, bulkExports } = options;
  routeScope(app, { area: 'A', tags: ['bulk enhance'], auth: tokens });

  await app.register(submitRoute, options);

  app.get(
    '/kg/v3/enhance/bulk/status',
    {
      schema: {
        operationId: 'bulkjobStatusForToken',
        summary: "The token's bulk jobs, newest first",
        response: { 200: Type.Array(statusRecordSchema), 401: bulkErrorResponses[401], 500: generalError },
      },
    },
    async (request) => bulk.list(request.account.id),
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/status',
    {
      schema: {
        operationId: 'bulkjobStatus',
        summary: 'Status of a bulk job: 200 when complete, 201 while running or stopped',
        params: bulkjobIdParams,
        response: { 200: statusEnvelope, 201: statusEnvelope, ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      const { bulkjobId } = request.params;
      const { complete, record } = await bulk.status(request.account.id, bulkjobId);
      const code = complete ? 200 : 201;
      return reply.code(code).send({ code, content: record });
    },
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/stop',
    {
      schema: {
        operationId: 'stopBulkjob',
        summary: 'Stop a bulk job (results so far stay downloadable)',
        params: bulkjobIdParams,
        response: { 200: stopAnswer, ...bulkErrorResponses },
      },
    },
    async (request) => bulk.stop(request.account.id, request.params.bulkjobId),
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/delete',
    {
      schema: {
        operationId: 'deleteBulkjob',
        summary: 'Delete a bulk job and its results',
        params: bulkjobIdParams,
        response: { ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      await bulk.delete(request.account.id, request.params.bulkjobId);
      return sendRaw(reply.code(200), undefined);
    },
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/:jobIdx',
    {
      schema: {
        operationId: 'singleResult',
        summary: 'The enhance response of one record (0-based index)',
        params: singleResultParams,
        response: { 201: generalError, ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      const { bulkjobId, jobIdx } = request.params;
      const text = await bulk.singleResult(request.account.id, bulkjobId, jobIdx);
      return sendRaw(reply.type('application/json'), text);
    },
  );

  await app.register(downloadRoutes, options);

  app.get(
    '/kg/v3/enhance/bulk/report/:bulkjobId/:reportId',
    {
      schema: {
        operationId: 'coverageReportGet',
        summary: 'A coverage report: CSV (whatever Accept says), or JSON with format=json',
        params: reportParams,
        querystring: reportQuerystring,
        response: { ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      const { bulkjobId, reportId } = request.params;
      const { format } = request.query;
      const answer = await bulkExports.report(request.account.id, bulkjobId, reportId, format);
      reply.header('Content-Type', answer.contentType);
      return sendRaw(reply, answer.body);
    },
  );
};
