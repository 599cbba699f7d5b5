/**
 * The two ends of a running bulk enhance job as stored, for both runners (one process, or the
 * shared queue): stopped, or finished once every record has a result. Each is a conditional
 * update from `RUNNING`, so of several callers (a stop and a finish, or several processes) one
 * wins and only it tells the job's listeners.
 */
import type { BulkJobRow, BulkJobState, BulkJobStore } from '../storage/index.ts';
import { stateMessage } from './job-record.ts';

/** States in which a job is worked on: a stop or the end may only follow from these. */
export const RUNNING: readonly BulkJobState[] = ['NOT_STARTED', 'IN_PROCESS'];

/**
 * Marks `jobId` `STOPPED` at `now` (results so far stay); the stopped job, or `undefined` when it
 * is gone or no longer running (finished or deleted meanwhile: nothing to stop).
 */
export async function markStopped(
  store: BulkJobStore,
  jobId: string,
  now: number,
): Promise<BulkJobRow | undefined> {
  const current = await store.get(jobId);
  if (!current) return undefined;
  return store.update(
    jobId,
    {
      state: 'STOPPED',
      completedTime: now,
      estimateSec: null,
      message: stateMessage({ ...current, state: 'STOPPED' }),
    },
    RUNNING,
  );
}

/**
 * Marks `row`, whose every record has a result, `COMPLETE` (or `COMPLETE_WITH_FAILURES`) at
 * `now`; the finished job, or `undefined` when it no longer runs (stopped, deleted or finished
 * by another caller meanwhile: that change stands).
 */
export function markFinished(
  store: BulkJobStore,
  row: BulkJobRow,
  now: number,
): Promise<BulkJobRow | undefined> {
  const state = row.failed > 0 ? 'COMPLETE_WITH_FAILURES' : 'COMPLETE';
  return store.update(
    row.id,
    {
      state,
      startTime: row.startTime ?? now,
      completedTime: now,
      estimateSec: null,
      message: stateMessage({ ...row, state }),
    },
    RUNNING,
  );
}
