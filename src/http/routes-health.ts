import type { Storage } from '../storage/index.ts';
import type { RoutePlugin } from './route-scope.ts';

/** `GET /healthz`: 200 once the server is ready (store open and answering). */
export const healthRoutes: RoutePlugin<{ storage: Storage }> = async (app, options) => {
  app.get('/healthz', { schema: { hide: true } }, async () => {
    await options.storage.ping();
    return { status: 'ok' };
  });
};
