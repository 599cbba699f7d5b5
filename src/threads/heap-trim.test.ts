import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { HeapTrimmer, heapTrimAvailable } from './heap-trim.ts';

test('the tests run with --expose-gc, as npm test starts them', () => {
  assert.equal(heapTrimAvailable(), true);
});

test('a heap grown past the trigger is collected back to its live size, and the trigger follows it', () => {
  const trimmer = new HeapTrimmer({ minTriggerMiB: 24, headroomMiB: 8 });
  // ~40 MiB of objects that live long enough to reach the old generation, then become garbage.
  let bulky: { n: number; s: string }[] | null = Array.from({ length: 400_000 }, (_, n) => ({
    n,
    s: `v${n}`,
  }));
  assert.ok(v8.getHeapStatistics().used_heap_size > 24 * 2 ** 20);
  bulky = null;
  assert.equal(bulky, null);
  assert.equal(trimmer.maybeTrim(), true);
  assert.equal(trimmer.collections, 1);
  const after = v8.getHeapStatistics().used_heap_size;
  assert.ok(after < 24 * 2 ** 20, `heap after the collection: ${after} bytes`);
  // Right after a collection the heap is below the trigger: nothing to do.
  assert.equal(trimmer.maybeTrim(), false);
  assert.equal(trimmer.collections, 1);
});

test('worker threads collect too: they inherit the process flag', async () => {
  const worker = new Worker(
    `import('${new URL('./heap-trim.ts', import.meta.url).href}').then(({ HeapTrimmer }) => {
       const t = new HeapTrimmer({ minTriggerMiB: 0, headroomMiB: 0 });
       require('node:worker_threads').parentPort.postMessage(t.maybeTrim());
     });`,
    { eval: true },
  );
  const [answer] = (await new Promise((resolve, reject) => {
    worker.once('message', (m) => resolve([m]));
    worker.once('error', reject);
  })) as [boolean];
  await worker.terminate();
  assert.equal(answer, true);
});

test('without --expose-gc trimming is off: nothing collects, nothing throws', () => {
  const script = `import { HeapTrimmer, heapTrimAvailable } from '${new URL('./heap-trim.ts', import.meta.url).href}';
    const t = new HeapTrimmer({ minTriggerMiB: 0, headroomMiB: 0 });
    console.log(JSON.stringify([heapTrimAvailable(), t.maybeTrim(), t.collections]));`;
  const env = { ...process.env, NODE_OPTIONS: '' };
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), [false, false, 0]);
});
