import type { App } from '../../src/http/index.ts';

/** Small helpers over `app.inject()` for the bulk endpoints. */
export function bulkClient(app: App) {
  return {
    submit(token: string, body: unknown, query = '') {
      return app.inject({
        method: 'POST',
        url: `/kg/v3/enhance/bulk?token=${token}${query}`,
        headers: { 'content-type': 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    get(token: string, path: string, query = '') {
      return app.inject({ method: 'GET', url: `/kg/v3/enhance/bulk${path}?token=${token}${query}` });
    },
    /** Polls the status until the job leaves NOT_STARTED/IN_PROCESS; returns the last record. */
    async waitFinal(token: string, jobId: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await app.inject({
          method: 'GET',
          url: `/kg/v3/enhance/bulk/${jobId}/status?token=${token}`,
        });
        const content = res.json().content as Record<string, unknown>;
        if (content.status !== 'NOT_STARTED' && content.status !== 'IN_PROCESS') return content;
        if (Date.now() > deadline) throw new Error(`job ${jobId} still ${content.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** `n` records alternating an organization name query, an id query and a query matching nothing. */
export function sampleRecords(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    switch (i % 3) {
      case 0:
        return { type: 'Organization', name: 'Acme Robotics', customId: `c${i}` };
      case 1:
        return { id: 'ORG-globex' };
      default:
        return { type: 'Organization', name: `Zzyzx Bakery ${i}` };
    }
  });
}
