import { Type } from 'typebox';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenService } from '../accounts/index.ts';
import type { BulkExports, BulkService, DownloadAnswer } from '../bulk/index.ts';
import { authenticate } from './auth.ts';
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

const security: Array<Record<string, string[]>> = [{ tokenscheme: [] }, { bearer: [] }];
const tags = ['bulk enhance'];

type IdParams = { bulkjobId: string };

function sendDownload(reply: FastifyReply, answer: DownloadAnswer): FastifyReply {
  reply.header('Content-Type', answer.contentType);
  reply.header('X-Diffbot-ReportId', answer.reportId);
  if (answer.contentDisposition) reply.header('Content-Disposition', answer.contentDisposition);
  if (answer.contentLength !== undefined) reply.header('Content-Length', answer.contentLength);
  return reply.send(answer.body as Readable);
}

/** Area A bulk enhance jobs (docs/api.md#area-a-bulk-enhance-jobs, #compatibility, #limits). */
export async function bulkRoutes(app: FastifyInstance, options: BulkRoutesOptions): Promise<void> {
  const { tokens, bulk, bulkExports } = options;
  const preHandler = authenticate(tokens);

  // Submission in its own context: its body (up to 200 MiB) is streamed, not parsed whole.
  await app.register(async (submit) => {
    submit.removeAllContentTypeParsers();
    submit.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    submit.post(
      '/kg/v3/enhance/bulk',
      {
        config: { area: 'A' },
        preHandler,
        // The body schema documents the API; the body itself is validated as it streams.
        validatorCompiler: (context) =>
          context.httpPart === 'body' ? () => true : validatorCompiler(context),
        schema: {
          operationId: 'submitBulkjob',
          summary: 'Submit a bulk enhance job: a JSON array of query records',
          tags,
          security,
          querystring: submitQuerystring,
          body: submitBody,
          response: { 202: submitAck, ...bulkErrorResponses },
        },
      },
      async (request, reply) => {
        const stream = (request.body as Readable | undefined) ?? request.raw;
        // A body rejected part way is left undestroyed, so the rest can be drained and the
        // kept-alive connection reused (`unread-body.ts`).
        const body = stream.iterator({ destroyOnReturn: false });
        const length = Number(request.headers['content-length']);
        const job = await bulk.submit(
          request.account.id,
          request.query as Record<string, unknown>,
          body,
          Number.isFinite(length) ? length : undefined,
        );
        return reply.code(202).send({ job_id: job.id, bulkjobId: job.id });
      },
    );
  });

  app.get(
    '/kg/v3/enhance/bulk/status',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'bulkjobStatusForToken',
        summary: "The token's bulk jobs, newest first",
        tags,
        security,
        response: { 200: Type.Array(statusRecordSchema), 401: bulkErrorResponses[401], 500: generalError },
      },
    },
    async (request) => bulk.list(request.account.id),
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/status',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'bulkjobStatus',
        summary: 'Status of a bulk job: 200 when complete, 201 while running or stopped',
        tags,
        security,
        params: bulkjobIdParams,
        response: { 200: statusEnvelope, 201: statusEnvelope, ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      const { bulkjobId } = request.params as IdParams;
      const { complete, record } = bulk.status(request.account.id, bulkjobId);
      const code = complete ? 200 : 201;
      return reply.code(code).send({ code, content: record });
    },
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/stop',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'stopBulkjob',
        summary: 'Stop a bulk job (results so far stay downloadable)',
        tags,
        security,
        params: bulkjobIdParams,
        response: { 200: stopAnswer, ...bulkErrorResponses },
      },
    },
    async (request) => bulk.stop(request.account.id, (request.params as IdParams).bulkjobId),
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/delete',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'deleteBulkjob',
        summary: 'Delete a bulk job and its results',
        tags,
        security,
        params: bulkjobIdParams,
        response: { ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      bulk.delete(request.account.id, (request.params as IdParams).bulkjobId);
      return reply.code(200).send();
    },
  );

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId/:jobIdx',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'singleResult',
        summary: 'The enhance response of one record (0-based index)',
        tags,
        security,
        params: singleResultParams,
        response: { 201: generalError, ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      const { bulkjobId, jobIdx } = request.params as { bulkjobId: string; jobIdx: string };
      const text = bulk.singleResult(request.account.id, bulkjobId, jobIdx);
      return reply.type('application/json').send(text);
    },
  );

  const download = async (request: FastifyRequest, reply: FastifyReply, input: Record<string, unknown>) => {
    const { bulkjobId } = request.params as IdParams;
    const answer = await bulkExports.download(request.account.id, bulkjobId, input);
    return sendDownload(reply, answer);
  };
  const downloadResponses = { 201: generalError, ...bulkErrorResponses };

  app.get(
    '/kg/v3/enhance/bulk/:bulkjobId',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'bulkjobResultGet',
        summary: 'Download the results of a bulk job (JSON Lines by default)',
        tags,
        security,
        params: bulkjobIdParams,
        querystring: downloadQuerystring,
        response: downloadResponses,
      },
    },
    async (request, reply) => download(request, reply, request.query as Record<string, unknown>),
  );

  app.post(
    '/kg/v3/enhance/bulk/:bulkjobId',
    {
      config: { area: 'A' },
      preHandler,
      // A POST without a body downloads with the defaults.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'bulkjobResultPost',
        summary: 'Download the results of a bulk job, parameters in a JSON body',
        tags,
        security,
        params: bulkjobIdParams,
        body: downloadBody,
        response: downloadResponses,
      },
    },
    async (request, reply) => {
      // Parameters may also come in the query string; the body wins (docs/api.md#downloads).
      const { token: _token, ...query } = request.query as Record<string, unknown>;
      const body = (request.body ?? {}) as Record<string, unknown>;
      return download(request, reply, { ...query, ...body });
    },
  );

  app.get(
    '/kg/v3/enhance/bulk/report/:bulkjobId/:reportId',
    {
      config: { area: 'A' },
      preHandler,
      schema: {
        operationId: 'coverageReportGet',
        summary: 'A coverage report: CSV (whatever Accept says), or JSON with format=json',
        tags,
        security,
        params: reportParams,
        querystring: reportQuerystring,
        response: { ...bulkErrorResponses },
      },
    },
    async (request, reply) => {
      const { bulkjobId, reportId } = request.params as { bulkjobId: string; reportId: string };
      const { format } = request.query as { format?: string };
      const answer = bulkExports.report(request.account.id, bulkjobId, reportId, format);
      reply.header('Content-Type', answer.contentType);
      return reply.send(answer.body);
    },
  );
}
