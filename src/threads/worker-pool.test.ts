import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerPool } from './worker-pool.ts';

const script = new URL('../../test/fixtures/echo-worker.ts', import.meta.url);
type Answer = { value: number; threadId: number };

test('idle threads are ended after idleTimeoutMs and started again when work comes', async () => {
  const pool = new WorkerPool<number, Answer>({ size: 2, script, idleTimeoutMs: 200 });
  try {
    const first = await Promise.all([1, 2, 3, 4].map((n) => pool.run(n)));
    assert.deepEqual(
      first.map((a) => a.value),
      [2, 4, 6, 8],
    );
    // Both threads answered (on a loaded host the first may already be idle past the timeout
    // by the time the second's last answer arrives, so live threads are not counted here).
    assert.equal(new Set(first.map((a) => a.threadId)).size, 2);
    // Ending a thread takes a while on a loaded host: wait for it (up to 15 s), then check.
    for (const deadline = Date.now() + 15_000; pool.liveThreads > 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(pool.liveThreads, 0, 'idle threads are gone');
    const again = await pool.run(5);
    assert.equal(again.value, 10);
    assert.ok(!first.some((a) => a.threadId === again.threadId), 'a new thread answered');
    assert.equal(pool.liveThreads, 1);
  } finally {
    await pool.close();
  }
});

test('without idleTimeoutMs threads live as long as the pool', async () => {
  const pool = new WorkerPool<number, Answer>({ size: 1, script });
  try {
    const first = await pool.run(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(pool.liveThreads, 1);
    assert.equal((await pool.run(2)).threadId, first.threadId);
  } finally {
    await pool.close();
  }
});

test('resourceLimits reach every thread of the pool', async () => {
  const limited = new URL('../../test/fixtures/heap-limit-worker.ts', import.meta.url);
  const pool = new WorkerPool<number, number>({
    size: 2,
    script: limited,
    resourceLimits: { maxOldGenerationSizeMb: 300 },
  });
  const unlimited = new WorkerPool<number, number>({ size: 1, script: limited });
  try {
    const limits = await Promise.all([1, 2, 3, 4].map((n) => pool.run(n)));
    // The heap limit is the old generation's plus the young generation's.
    for (const limit of limits) assert.ok(limit >= 300 && limit < 500, `heap limit ${limit} MiB`);
    assert.ok(
      (await unlimited.run(1)) !== limits[0],
      'without resourceLimits a thread has the default limit',
    );
  } finally {
    await Promise.all([pool.close(), unlimited.close()]);
  }
});

test('serveTaskBatches answers the tasks queued together as one batch, each on its own', async () => {
  const batches = new URL('../../test/fixtures/batch-worker.ts', import.meta.url);
  const pool = new WorkerPool<number, { value: number; batch: number; index: number }>({
    size: 1,
    script: batches,
    tasksPerWorker: 8,
  });
  try {
    // Posted before the thread has started: all queued when it takes its first batch.
    const together = await Promise.allSettled([1, 2, 13, 4, 5, 6].map((n) => pool.run(n)));
    assert.deepEqual(
      together.map((o) => (o.status === 'fulfilled' ? o.value.value : 'failed')),
      [2, 4, 'failed', 8, 10, 12],
    );
    assert.match(String((together[2] as PromiseRejectedResult).reason), /unlucky task/);
    assert.ok(
      together.some((o) => o.status === 'fulfilled' && o.value.batch > 1),
      'answered together',
    );
    // A lone task goes at once, in a batch of its own.
    assert.deepEqual(await pool.run(7), { value: 14, batch: 1, index: 0 });
    // A batch that fails fails every task it did not answer; the thread serves on.
    const failed = await Promise.allSettled([-1, 3].map((n) => pool.run(n)));
    assert.equal(failed[0].status, 'rejected');
    assert.match(String((failed[0] as PromiseRejectedResult).reason), /the batch failed/);
    assert.equal((await pool.run(9)).value, 18);
  } finally {
    await pool.close();
  }
});

test('serveTaskBatches takes the tasks posted one by one while it was busy as its next batch, in order', async () => {
  const batches = new URL('../../test/fixtures/batch-worker.ts', import.meta.url);
  // Task 1000 holds the thread until the test opens the gate, and says when it has started.
  const gate = new Int32Array(new SharedArrayBuffer(8));
  const pool = new WorkerPool<number, { value: number; batch: number; index: number }>({
    size: 1,
    script: batches,
    workerData: { gate },
    tasksPerWorker: 16,
  });
  try {
    const busy = pool.run(1000);
    await Atomics.waitAsync(gate, 0, 0).value;
    // Each in a turn of its own: one message each, all on the port when the thread is free.
    const later: Promise<{ value: number; batch: number; index: number }>[] = [];
    for (const n of [2, 3, 4, 5, 6, 7]) {
      later.push(pool.run(n));
      await new Promise((resolve) => setImmediate(resolve));
    }
    Atomics.store(gate, 1, 1);
    Atomics.notify(gate, 1);
    assert.deepEqual(await busy, { value: 2000, batch: 1, index: 0 });
    assert.deepEqual(await Promise.all(later), [
      { value: 4, batch: 6, index: 0 },
      { value: 6, batch: 6, index: 1 },
      { value: 8, batch: 6, index: 2 },
      { value: 10, batch: 6, index: 3 },
      { value: 12, batch: 6, index: 4 },
      { value: 14, batch: 6, index: 5 },
    ]);
    // Then a lone task, alone again.
    assert.deepEqual(await pool.run(8), { value: 16, batch: 1, index: 0 });
  } finally {
    await pool.close();
  }
});

test('a pool with decode resolves each task with what decode makes of its reply; errors stay errors', async () => {
  const batches = new URL('../../test/fixtures/batch-worker.ts', import.meta.url);
  const pool = new WorkerPool<number, string, { value: number; batch: number }>(
    { size: 1, script: batches, tasksPerWorker: 8 },
    (sent) => `value ${sent.value}`,
  );
  try {
    const outcomes = await Promise.allSettled([1, 13, 3].map((n) => pool.run(n)));
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'failed')),
      ['value 2', 'failed', 'value 6'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /unlucky task/);
  } finally {
    await pool.close();
  }
});

test("transfer hands a result's buffers over to the pool's thread, one by one and in batches", async () => {
  const script = new URL('../../test/fixtures/transfer-worker.ts', import.meta.url);
  type Answer = { bytes: Uint8Array; previousDetached: boolean };
  for (const batch of [false, true]) {
    const pool = new WorkerPool<number, Answer>({
      size: 1,
      script,
      workerData: { batch },
      tasksPerWorker: 8,
    });
    try {
      const first = await Promise.allSettled([3, 5, 13, 7].map((n) => pool.run(n)));
      assert.deepEqual(
        first.map((o) => (o.status === 'fulfilled' ? [...o.value.bytes] : 'failed')),
        [[3, 3, 3], [5, 5, 5, 5, 5], 'failed', [7, 7, 7, 7, 7, 7, 7]],
        `batch ${batch}`,
      );
      // The worker's copies were detached by the transfer: the bytes moved, not copied.
      const next = await pool.run(2);
      assert.deepEqual([...next.bytes], [2, 2]);
      assert.equal(next.previousDetached, true, `batch ${batch}`);
    } finally {
      await pool.close();
    }
  }
});
