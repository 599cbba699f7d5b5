/**
 * The in-memory side of a running bulk extract job during one pass of the scheduler: its
 * hosts' queues of claimed URLs (lanes) and its robots.txt verdicts for the pass.
 */
import type { ClaimedUrl, StoredCrawlJob } from '../storage/index.ts';
import type { RobotsVerdict } from './robots.ts';

/** One host's queue within a run. */
export interface Lane {
  readonly hostId: number;
  /** `host[:port]` of the lane's URLs: the key of its politeness. */
  readonly host: string;
  queue: ClaimedUrl[];
  /** The store had nothing claimable at the last look. */
  exhausted: boolean;
  /** When `exhausted`, the time a URL waiting for a retry becomes claimable (0 = none). */
  wakeAt: number;
  /** The `Crawl-delay` robots.txt asks of this host for the run's user agent, ms (0: none). */
  robotsDelayMs: number;
  /** A claim from the store is on its way. */
  refilling: boolean;
  /** A URL of the lane went back to the frontier while a claim was on its way: look again. */
  lookAgain: boolean;
}

/** A running job during one pass. */
export interface JobRun {
  readonly job: StoredCrawlJob;
  readonly lanes: Lane[];
  readonly lanesById: Map<number, Lane>;
  laneCursor: number;
  /** robots.txt verdicts for this pass, per origin (`pending` while fetching). */
  readonly robots: Map<string, RobotsVerdict | 'pending'>;
  /** The user agent whose robots.txt rules apply (the job's `User-Agent` header, or the default). */
  readonly userAgent: string;
  inflight: number;
  active: boolean;
  /**
   * Aborted when the run ends (paused, deleted, ended, stopping): its fetches still waiting for
   * their host's turn give up, and their URLs go back to pending, never requested.
   */
  readonly ended: AbortController;
  /** The round's end is being recorded. */
  ending: boolean;
}

function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** A fresh run of `job` over its hosts (as the store lists them). */
export function newJobRun(
  job: StoredCrawlJob,
  hosts: ReadonlyArray<{ hostId: number; host: string }>,
  defaultUserAgent: string,
): JobRun {
  const lanes = hosts.map(({ hostId, host }) => {
    const lane: Lane = {
      hostId,
      host,
      queue: [],
      exhausted: false,
      wakeAt: 0,
      robotsDelayMs: 0,
      refilling: false,
      lookAgain: false,
    };
    return lane;
  });
  return {
    job,
    lanes,
    lanesById: new Map(lanes.map((lane) => [lane.hostId, lane])),
    laneCursor: 0,
    robots: new Map(),
    userAgent: headerValue(job.settings.customHeaders, 'user-agent') ?? defaultUserAgent,
    inflight: 0,
    ended: new AbortController(),
    active: true,
    ending: false,
  };
}

/** Empties the run's queues; their URLs, to hand back to the store (pending, uncounted). */
export function takeQueued(run: JobRun): ClaimedUrl[] {
  const queued = run.lanes.flatMap((lane) => lane.queue);
  for (const lane of run.lanes) lane.queue = [];
  return queued;
}
