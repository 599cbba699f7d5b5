import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { TokenService } from '../accounts/index.ts';
import type { BulkService } from '../bulk/index.ts';
import { authenticate } from './auth.ts';
import {
  bulkErrorResponses,
  bulkjobIdParams,
  generalError,
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
}

const security: Array<Record<string, string[]>> = [{ tokenscheme: [] }, { bearer: [] }];
const tags = ['bulk enhance'];

type IdParams = { bulkjobId: string };

/** Area A bulk enhance jobs (SPEC.md endpoints 4–12; DECISIONS.md §0, §3, §7, §8). */
export async function bulkRoutes(app: FastifyInstance, options: BulkRoutesOptions): Promise<void> {
  const { tokens, bulk } = options;
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
        const body = (request.body as AsyncIterable<Uint8Array> | undefined) ?? request.raw;
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
}
