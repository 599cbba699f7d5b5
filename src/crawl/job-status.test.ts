import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  endOfRound,
  initialStatus,
  JobStatus,
  pause,
  restart,
  resume,
  roundLimit,
  statusMessage,
} from './job-status.ts';

test('every status has a message ending with a period; reference wordings kept', () => {
  for (const code of Object.values(JobStatus)) assert.match(statusMessage(code), /\.$/, String(code));
  assert.equal(statusMessage(6), 'Job paused.');
  assert.equal(statusMessage(7), 'Job is in progress.');
  assert.equal(statusMessage(8), 'All crawling temporarily paused by root administrator for maintenance.');
  assert.equal(statusMessage(9), 'Job has completed and no repeat is scheduled.');
  assert.equal(statusMessage(4, 61_000, 1_000), 'Next round to start in 60 seconds.');
});

test('a new job initializes, has no URLs, or waits for the end of maintenance', () => {
  assert.deepEqual(initialStatus(3, false), { status: 0, resumeStatus: null });
  assert.deepEqual(initialStatus(0, false), { status: 5, resumeStatus: null });
  assert.deepEqual(initialStatus(3, true), { status: 8, resumeStatus: 0 });
});

test('pause remembers what resume restores; resume during maintenance waits in 8', () => {
  const running = { status: 7, resumeStatus: null };
  const paused = pause(running);
  assert.deepEqual(paused, { status: 6, resumeStatus: 7 });
  assert.deepEqual(pause(paused), paused);
  assert.deepEqual(resume(paused, false), { status: 7, resumeStatus: null });
  assert.deepEqual(resume(paused, true), { status: 8, resumeStatus: 7 });
  // A finished job that is paused stays finished when resumed.
  assert.deepEqual(resume(pause({ status: 9, resumeStatus: null }), true), { status: 9, resumeStatus: null });
  // Pausing a job held for maintenance keeps what maintenance would restore.
  assert.deepEqual(pause({ status: 8, resumeStatus: 4 }), { status: 6, resumeStatus: 4 });
  assert.deepEqual(resume({ status: 6, resumeStatus: 0 }, false), { status: 7, resumeStatus: null });
  // Resuming a job that is not paused changes nothing.
  assert.deepEqual(resume(running, false), running);
});

test('restart runs again, or waits for maintenance', () => {
  assert.deepEqual(restart(2, false), { status: 7, resumeStatus: null });
  assert.deepEqual(restart(2, true), { status: 8, resumeStatus: 7 });
  assert.deepEqual(restart(0, false), { status: 5, resumeStatus: null });
});

test('rounds: one without repeat; maxRounds with repeat; -1 unlimited', () => {
  assert.equal(roundLimit({ repeat: 0, maxRounds: 5 }), 1);
  assert.equal(roundLimit({ repeat: 1, maxRounds: 0 }), 1);
  assert.equal(roundLimit({ repeat: 1, maxRounds: 3 }), 3);
  assert.equal(roundLimit({ repeat: 1, maxRounds: -1 }), Number.POSITIVE_INFINITY);
});

test('end of round: next round repeat days after the start, else 1, 9 or 10', () => {
  const day = 86_400_000;
  const job = { roundsCompleted: 0, roundStartedAt: 1_000, crawlSuccessesThisRound: 4 };
  assert.deepEqual(endOfRound({ repeat: 0, maxRounds: 0 }, job, 5_000), {
    status: 9,
    nextRoundAt: null,
    completedAt: 5_000,
  });
  assert.deepEqual(endOfRound({ repeat: 0.5, maxRounds: 2 }, job, 5_000), {
    status: 4,
    nextRoundAt: 1_000 + day / 2,
    completedAt: null,
  });
  // A round that took longer than `repeat` starts the next one at once.
  assert.equal(endOfRound({ repeat: 0.5, maxRounds: 2 }, job, 2 * day).nextRoundAt, 2 * day);
  assert.equal(endOfRound({ repeat: 0.5, maxRounds: 2 }, { ...job, roundsCompleted: 1 }, 5_000).status, 1);
  assert.equal(
    endOfRound({ repeat: 0, maxRounds: 0 }, { ...job, crawlSuccessesThisRound: 0 }, 5_000).status,
    10,
  );
});
