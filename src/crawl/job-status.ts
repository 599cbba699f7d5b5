/**
 * `jobStatus` of bulk extract jobs (docs/api.md#job-status-codes, #controlling-jobs) and the pure
 * transitions between them. Times are epoch milliseconds.
 */

/** The status codes. */
export const JobStatus = Object.freeze({
  initializing: 0,
  reachedMaxRounds: 1,
  nextRoundScheduled: 4,
  noUrls: 5,
  paused: 6,
  inProgress: 7,
  maintenance: 8,
  completed: 9,
  failed: 10,
});

export type JobStatusCode = (typeof JobStatus)[keyof typeof JobStatus];

/** Statuses in which the scheduler fetches the job's URLs. */
export const RUNNING_STATUSES: readonly number[] = [JobStatus.initializing, JobStatus.inProgress];
/** Statuses that operator maintenance holds (and restores afterwards). */
export const MAINTENANCE_HELD_STATUSES: readonly number[] = [
  JobStatus.initializing,
  JobStatus.inProgress,
  JobStatus.nextRoundScheduled,
];
/** Statuses after which nothing more happens unless the user restarts the job. */
export const FINAL_STATUSES: readonly number[] = [
  JobStatus.reachedMaxRounds,
  JobStatus.noUrls,
  JobStatus.completed,
  JobStatus.failed,
];

/** The message of a status; `nextRoundAt` and `now` give status 4 its countdown. */
export function statusMessage(status: number, nextRoundAt: number | null = null, now = Date.now()): string {
  switch (status) {
    case JobStatus.initializing:
      return 'Job is initializing.';
    case JobStatus.reachedMaxRounds:
      return 'Job has reached maxRounds limit.';
    case JobStatus.nextRoundScheduled: {
      const seconds = Math.max(0, Math.ceil(((nextRoundAt ?? now) - now) / 1000));
      return `Next round to start in ${seconds} seconds.`;
    }
    case JobStatus.noUrls:
      return 'No valid URLs were submitted.';
    case JobStatus.paused:
      return 'Job paused.';
    case JobStatus.inProgress:
      return 'Job is in progress.';
    case JobStatus.maintenance:
      return 'All crawling temporarily paused by root administrator for maintenance.';
    case JobStatus.completed:
      return 'Job has completed and no repeat is scheduled.';
    case JobStatus.failed:
      return 'Job failed to crawl any URL.';
    default:
      return `Unknown status ${status}.`;
  }
}

/** What a transition changes: the new status and the status held for resume. */
export interface StatusChange {
  readonly status: number;
  readonly resumeStatus: number | null;
}

/** The status of a new job: nothing to do without URLs; held while maintenance is on. */
export function initialStatus(validUrls: number, maintenance: boolean): StatusChange {
  if (validUrls === 0) return { status: JobStatus.noUrls, resumeStatus: null };
  if (maintenance) return { status: JobStatus.maintenance, resumeStatus: JobStatus.initializing };
  return { status: JobStatus.initializing, resumeStatus: null };
}

/**
 * `pause=1`: any job becomes paused (docs/api.md#controlling-jobs), remembering what resume
 * restores. Pausing a job held for maintenance keeps the status maintenance would have restored.
 * Idempotent.
 */
export function pause(current: { status: number; resumeStatus: number | null }): StatusChange {
  if (current.status === JobStatus.paused) return current;
  const resumeStatus = current.status === JobStatus.maintenance ? current.resumeStatus : current.status;
  return { status: JobStatus.paused, resumeStatus };
}

/**
 * `pause=0`: a paused job gets back the status it had (so a finished job stays finished and a
 * running one continues); during maintenance it waits in status 8 instead. Other jobs are
 * unchanged.
 */
export function resume(
  current: { status: number; resumeStatus: number | null },
  maintenance: boolean,
): StatusChange {
  if (current.status !== JobStatus.paused) return current;
  let restored = current.resumeStatus ?? JobStatus.inProgress;
  if (restored === JobStatus.initializing) restored = JobStatus.inProgress;
  if (maintenance && MAINTENANCE_HELD_STATUSES.includes(restored)) {
    return { status: JobStatus.maintenance, resumeStatus: restored };
  }
  return { status: restored, resumeStatus: null };
}

/** `restart=1`: the job runs again from scratch (held while maintenance is on). */
export function restart(validUrls: number, maintenance: boolean): StatusChange {
  if (validUrls === 0) return { status: JobStatus.noUrls, resumeStatus: null };
  if (maintenance) return { status: JobStatus.maintenance, resumeStatus: JobStatus.inProgress };
  return { status: JobStatus.inProgress, resumeStatus: null };
}

/** Settings that decide what follows a round. */
export interface RoundSettings {
  /** Days between round starts; 0 = no repeat. */
  readonly repeat: number;
  /** 0 or 1 = one round; -1 = unlimited; n = at most n rounds. */
  readonly maxRounds: number;
}

/** The job at the end of a round, before the round is counted. */
export interface RoundEndInput {
  readonly roundsCompleted: number;
  readonly roundStartedAt: number | null;
  readonly crawlSuccessesThisRound: number;
}

/** What the end of a round leads to. */
export interface RoundEnd {
  readonly status: number;
  /** Start of the next round (status 4); `null` when none. */
  readonly nextRoundAt: number | null;
  /** Set when the job reached a final status. */
  readonly completedAt: number | null;
}

/** The number of rounds a job may run; `Infinity` when unlimited. */
export function roundLimit(settings: RoundSettings): number {
  if (settings.repeat <= 0) return 1;
  if (settings.maxRounds < 0) return Number.POSITIVE_INFINITY;
  return Math.max(1, settings.maxRounds);
}

/**
 * The status after a round: another round `repeat` days after this one started when the round
 * limit allows (status 4, or at once when that time has passed), otherwise a final status —
 * 10 when this round crawled no page successfully, 1 when repeats ran out, 9 without repeat.
 */
export function endOfRound(settings: RoundSettings, job: RoundEndInput, now: number): RoundEnd {
  const completed = job.roundsCompleted + 1;
  if (completed < roundLimit(settings)) {
    const start = (job.roundStartedAt ?? now) + settings.repeat * 86_400_000;
    return { status: JobStatus.nextRoundScheduled, nextRoundAt: Math.max(start, now), completedAt: null };
  }
  if (job.crawlSuccessesThisRound === 0) {
    return { status: JobStatus.failed, nextRoundAt: null, completedAt: now };
  }
  const status = settings.repeat > 0 ? JobStatus.reachedMaxRounds : JobStatus.completed;
  return { status, nextRoundAt: null, completedAt: now };
}
