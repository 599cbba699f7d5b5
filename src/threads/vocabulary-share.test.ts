import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { TermTable } from '../match/index.ts';
import { createVocabularyShareData, VocabularyShare } from './vocabulary-share.ts';

const SHARE_URL = new URL('./vocabulary-share.ts', import.meta.url).href;
const TABLE_URL = new URL('../match/term-table.ts', import.meta.url).href;

/**
 * A worker that asks the share for `prefix` at `version`, building (slowly) if it has to. With a
 * `barrier` of n, it asks only once n workers have joined the share, so each hears the other's
 * announcement as it is made (a loaded machine can start one worker 300 ms after the other; one
 * that joins after an announcement asks for the table again, which a test of its own covers).
 */
function joinInWorker(
  data: ReturnType<typeof createVocabularyShareData>,
  version: string,
  barrier?: { readonly joined: Int32Array; readonly n: number },
  options: { readonly resendWaitMs?: number } = {},
) {
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     Promise.all([import('${SHARE_URL}'), import('${TABLE_URL}')]).then(([{ VocabularyShare }, { TermTable }]) => {
       const share = new VocabularyShare(workerData.data, workerData.options);
       const barrier = workerData.barrier;
       if (barrier) {
         Atomics.add(barrier.joined, 0, 1);
         Atomics.notify(barrier.joined, 0);
         for (let seen; (seen = Atomics.load(barrier.joined, 0)) < barrier.n; ) Atomics.wait(barrier.joined, 0, seen);
       }
       const table = share.table('ot:', workerData.version, () => {
         const until = Date.now() + 300; while (Date.now() < until);
         return TermTable.build([['built-in-worker', 1]]);
       });
       parentPort.postMessage({ built: share.built, worker: table.get('built-in-worker'), main: table.get('built-in-main'),
         shared: table.data.chars.buffer instanceof SharedArrayBuffer });
     });`,
    { eval: true, workerData: { data, version, barrier, options } },
  );
  return new Promise<{ built: number; worker?: number; main?: number; shared: boolean }>(
    (resolve, reject) => {
      worker.once('message', (m) => {
        void worker.terminate();
        resolve(m);
      });
      worker.once('error', reject);
    },
  );
}

test('threads sharing vocabularies build each one once and read the same table', async () => {
  const data = createVocabularyShareData();
  const main = new VocabularyShare(data);
  // Both have joined before either asks; exactly one builds, the other gets its table.
  const barrier = { joined: new Int32Array(new SharedArrayBuffer(4)), n: 2 };
  const answers = await Promise.all([joinInWorker(data, 'v1', barrier), joinInWorker(data, 'v1', barrier)]);
  assert.deepEqual(answers.map((a) => a.built).sort(), [0, 1]);
  for (const answer of answers) {
    assert.equal(answer.worker, 1);
    assert.equal(answer.shared, true);
  }
  // The main thread joins later: nothing to build.
  const table = main.table('ot:', 'v1', () => TermTable.build([['built-in-main', 1]]));
  assert.equal(main.built, 0);
  assert.equal(table.get('built-in-worker'), 1);
  // A new graph version is built again, once.
  const next = main.table('ot:', 'v2', () => TermTable.build([['built-in-main', 2]]));
  assert.equal(main.built, 1);
  assert.equal(next.get('built-in-main'), 2);
  // A thread starting now learns the tables built so far from the handoff.
  const later = await joinInWorker(main.handoff(), 'v2');
  assert.deepEqual(later, { built: 0, worker: undefined, main: 2, shared: true });
  main.close();
});

test('a thread that joins with a handoff taken before a table was announced gets it posted again', async () => {
  const data = createVocabularyShareData();
  const main = new VocabularyShare(data);
  const stale = main.handoff();
  // Announced after the handoff was taken, before the worker's channel opens: it never hears it.
  const builder = new VocabularyShare(data);
  builder.table('ot:', 'v1', () => TermTable.build([['built-in-main', 1]]));
  builder.close();
  // The worker finds the announcement counted but not heard, asks, and the main thread (whose
  // event loop is free while it awaits) posts the table again: nothing is built twice.
  const answer = await joinInWorker(stale, 'v1');
  assert.deepEqual(answer, { built: 0, worker: undefined, main: 1, shared: true });
  assert.equal(main.built, 0);
  main.close();
});

test('a thread that missed a table nobody can post again builds it after a short wait', async () => {
  const data = createVocabularyShareData();
  const builder = new VocabularyShare(data);
  builder.table('ot:', 'v1', () => TermTable.build([['built-in-main', 1]]));
  builder.close();
  const started = Date.now();
  const answer = await joinInWorker(data, 'v1', undefined, { resendWaitMs: 1_000 });
  assert.deepEqual(answer, { built: 1, worker: 1, main: undefined, shared: true });
  // Starting the worker and building (300 ms) take far less than the wait without it.
  assert.ok(Date.now() - started >= 1_000, 'it waited for an answer first');
});

test('a lock left behind by a dead builder delays the others only up to the wait limit', () => {
  const data = createVocabularyShareData();
  data.locks.fill(1);
  const share = new VocabularyShare(data, { waitMs: 200 });
  const started = Date.now();
  const table = share.table('pt:', 'v1', () => TermTable.build([['x', 1]]));
  assert.ok(Date.now() - started >= 150);
  assert.equal(table.get('x'), 1);
  assert.equal(share.built, 1);
  share.close();
});
