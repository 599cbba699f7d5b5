import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InProcessHostPoliteness } from './host-politeness.ts';

const delayed = { delayMs: 120, maxConcurrent: 16 };
const open = { delayMs: 0, maxConcurrent: 2 };

describe('InProcessHostPoliteness', () => {
  test('with a delay: one request at a time, each beginning that long after the previous ended', async () => {
    const politeness = new InProcessHostPoliteness();
    const starts: number[] = [];
    const ends: number[] = [];
    await Promise.all(
      [0, 1, 2].map(async () => {
        const lease = await politeness.acquire('site.test', delayed);
        starts.push(performance.now());
        await new Promise((resolve) => setTimeout(resolve, 30));
        ends.push(performance.now());
        lease.release();
      }),
    );
    for (let i = 1; i < 3; i++) assert.ok(starts[i] - ends[i - 1] >= 115, `gap ${starts[i] - ends[i - 1]}`);
  });

  test('the delay holds across callers with different rules: the host is spaced, not each caller', async () => {
    const politeness = new InProcessHostPoliteness();
    const first = await politeness.acquire('site.test', delayed);
    first.release();
    const at = performance.now();
    // A caller that asks for no delay itself goes at once; one that asks for 120 ms waits.
    (await politeness.acquire('site.test', open)).release();
    assert.ok(performance.now() - at < 50);
    const second = await politeness.acquire('site.test', delayed);
    assert.ok(performance.now() - at >= 115);
    second.release();
    // Other hosts are not held up.
    const other = performance.now();
    (await politeness.acquire('other.test', delayed)).release();
    assert.ok(performance.now() - other < 50);
  });

  test('without a delay, at most maxConcurrent at once; readyAt says when a request could begin', async () => {
    const politeness = new InProcessHostPoliteness();
    const a = await politeness.acquire('site.test', open);
    const b = await politeness.acquire('site.test', open);
    assert.equal(politeness.readyAt('site.test', open, Date.now()), Number.POSITIVE_INFINITY);
    let third = false;
    const c = politeness.acquire('site.test', open).then((lease) => {
      third = true;
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(third, false);
    const released: string[] = [];
    politeness.onRelease((host) => released.push(host));
    a.release();
    a.release(); // idempotent
    (await c).release();
    b.release();
    assert.equal(third, true);
    assert.deepEqual(released, ['site.test', 'site.test', 'site.test']);
    const now = Date.now();
    assert.equal(politeness.readyAt('site.test', open, now), now);
    assert.ok(politeness.readyAt('site.test', delayed, now) > now);
  });

  test('an aborted wait rejects with the reason and lets the next waiter go', async () => {
    const politeness = new InProcessHostPoliteness();
    const held = await politeness.acquire('site.test', delayed);
    const controller = new AbortController();
    const aborted = politeness.acquire('site.test', delayed, controller.signal);
    const next = politeness.acquire('site.test', delayed);
    controller.abort(new Error('stopping'));
    await assert.rejects(aborted, /stopping/);
    held.release();
    (await next).release();
  });
});
