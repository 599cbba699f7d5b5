/**
 * Enhance requests that cover every shape of answer (matches, extended mode, non-canonical facts,
 * filters, a Person with a threshold and custom id, no hit, combine, POST) against the small
 * fixture graph, and how tests that compare two runtimes' answers send and compare them.
 */
import assert from 'node:assert/strict';
import type { EncodedAnswer } from '../../src/enhance/index.ts';
import type { TestRuntime } from './test-runtime.ts';

export interface EnhanceRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly body?: object;
}

export const ANSWER_SHAPES: readonly EnhanceRequest[] = [
  { method: 'GET', url: '/kg/v3/enhance?type=Organization&name=Acme%20Robotics&size=3' },
  { method: 'GET', url: '/kg/v3/enhance?type=Organization&url=globex.example&jsonmode=extended' },
  { method: 'GET', url: '/kg/v3/enhance?type=Organization&id=ORG-acme&nonCanonicalFacts=true' },
  { method: 'GET', url: '/kg/v3/enhance?type=Organization&id=ORG-acme&filter=name;location.city.name' },
  { method: 'GET', url: '/kg/v3/enhance?type=Person&name=Jane%20Doe&threshold=0.1&customId=7' },
  { method: 'GET', url: '/kg/v3/enhance?type=Organization&name=Nothing%20Like%20It%20Zyxw' },
  { method: 'GET', url: '/kg/v3/enhance/combine?type=Person&email=jane.doe@acme-robotics.example' },
  { method: 'POST', url: '/kg/v3/enhance', body: { type: 'Person', email: ['jsmith@globex.example'] } },
];

/** `request` sent to `t`'s app with `token`. */
export function sendEnhance(t: TestRuntime, token: string, request: EnhanceRequest) {
  return t.runtime.app.inject({
    method: request.method,
    url: `${request.url}${request.url.includes('?') ? '&' : '?'}token=${token}`,
    ...(request.body ? { payload: request.body } : {}),
  });
}

/** A response body without the graph version (each runtime's graph has its own). */
export function comparable(body: Record<string, unknown>): Record<string, unknown> {
  const { kgversion, ...rest } = body;
  assert.equal(typeof kgversion, 'string');
  return rest;
}

/**
 * Records how many requests shared each answer's read snapshot (`EncodedAnswer.batched`) of
 * `t`'s enhance threads: the service holds this very object.
 */
export function watchBatches(t: TestRuntime): number[] {
  const threads = t.runtime.services.enhanceThreads!;
  const answer = threads.answer.bind(threads);
  const sizes: number[] = [];
  threads.answer = async (task) => {
    const answered: EncodedAnswer = await answer(task);
    sizes.push(answered.batched);
    return answered;
  };
  return sizes;
}

/**
 * Sends 30 enhance requests at once on a token of 25 credits (20 by id of a known organization,
 * 10 of an unknown one) and checks each answer of a batch is charged for its own matches, never
 * beyond the balance: exactly what the balance pays for is answered, the rest refused with 429,
 * answers without a match are free and never refused, and some requests shared a batch.
 * `batches` is `watchBatches(t)`'s record (emptied here first).
 */
export async function assertBatchedChargesExact(t: TestRuntime, batches: number[]): Promise<void> {
  const secret = await t.token(25);
  const id = (await t.runtime.services.tokens.find(secret))!.id;
  const byId = { method: 'GET' as const, url: '/kg/v3/enhance?type=Organization&id=ORG-globex' };
  const none = { method: 'GET' as const, url: '/kg/v3/enhance?type=Organization&id=ORG-nobody' };
  batches.length = 0;
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) => sendEnhance(t, secret, i % 3 === 2 ? none : byId)),
  );
  const paid = responses.filter((res, i) => i % 3 !== 2 && res.statusCode === 200).length;
  const refused = responses.filter((res) => res.statusCode === 429).length;
  // 20 matches asked for, at `perMatch` each, against 25 credits.
  const costs = t.runtime.config.credits;
  assert.equal(paid, Math.floor(25 / costs.perMatch));
  assert.equal(refused, 20 - paid);
  // Answers without a match cost nothing and are never refused.
  responses.forEach((res, i) => {
    if (i % 3 === 2) assert.equal(res.statusCode, 200);
  });
  assert.equal(await t.runtime.services.tokens.balance(id), 25 - paid * costs.perMatch);
  assert.ok(
    batches.some((size) => size > 1),
    `batch sizes ${batches.join(',')}`,
  );
}
