import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryHostTurnStore } from '../storage/index.ts';
import { SharedHostPoliteness } from './shared-host-politeness.ts';

const delayed = { delayMs: 120, maxConcurrent: 16 };

describe('SharedHostPoliteness', () => {
  test('two processes over one store of turns: one request to a host at a time, spaced by its delay', async () => {
    const turns = new MemoryHostTurnStore();
    const processes = [new SharedHostPoliteness({ turns }), new SharedHostPoliteness({ turns })];
    const spans: Array<{ start: number; end: number }> = [];
    await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (i) => {
        const lease = await processes[i % 2].acquire('site.test', delayed);
        const start = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 30));
        spans.push({ start, end: performance.now() });
        lease.release();
      }),
    );
    spans.sort((a, b) => a.start - b.start);
    for (let i = 1; i < spans.length; i++) {
      const gap = spans[i].start - spans[i - 1].end;
      assert.ok(gap >= 115, `request ${i} began ${gap.toFixed(0)} ms after the previous ended`);
    }
  });

  test('a host another process holds is not ready here until it may be free', async () => {
    const turns = new MemoryHostTurnStore();
    const here = new SharedHostPoliteness({ turns });
    const there = new SharedHostPoliteness({ turns });
    const held = await there.acquire('site.test', delayed);
    const now = Date.now();
    assert.equal(here.readyAt('site.test', delayed, now), now, 'nothing known before asking');
    const waiting = here.acquire('site.test', delayed);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Held locally while waiting for the store: no second request of this process starts.
    assert.equal(here.capacity('site.test', delayed, Date.now()), 0);
    held.release();
    (await waiting).release();
  });

  test('an abort while waiting for the turn rejects and frees this process for the host', async () => {
    const turns = new MemoryHostTurnStore();
    const here = new SharedHostPoliteness({ turns });
    const held = await new SharedHostPoliteness({ turns }).acquire('site.test', delayed);
    const abort = new AbortController();
    const waiting = here.acquire('site.test', delayed, abort.signal);
    setTimeout(() => abort.abort(new Error('stopped')), 30);
    await assert.rejects(waiting, /stopped/);
    held.release();
    await new Promise((resolve) => setTimeout(resolve, 130));
    const again = await here.acquire('site.test', delayed);
    again.release();
  });

  test('a host without delay is limited in this process only: the store is not asked', async () => {
    let asked = 0;
    const turns = new MemoryHostTurnStore();
    const counting = {
      take: (...args: Parameters<MemoryHostTurnStore['take']>) => {
        asked++;
        return turns.take(...args);
      },
      release: turns.release.bind(turns),
    };
    const politeness = new SharedHostPoliteness({ turns: counting });
    const leases = await Promise.all(
      [0, 1].map(() => politeness.acquire('open.test', { delayMs: 0, maxConcurrent: 2 })),
    );
    for (const lease of leases) lease.release();
    assert.equal(asked, 0);
  });
});
