import type { FastifyInstance } from 'fastify';
import type { Storage } from '../storage/index.ts';

/** `GET /healthz`: 200 once the server is ready (store open and answering). */
export async function healthRoutes(app: FastifyInstance, options: { storage: Storage }): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => {
    options.storage.entities.version();
    return { status: 'ok' };
  });
}
