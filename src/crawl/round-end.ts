/**
 * The end of a bulk extract job's round: its next status (another round later, or final), the
 * rounds counter, and the `notifyWebhook` notification queued in the same transaction.
 */
import type { CrawlJobStore, Storage, StoredCrawlJob } from '../storage/index.ts';
import { jobRecord } from './job-record.ts';
import { endOfRound, JobStatus, statusMessage } from './job-status.ts';

/**
 * Ends the round of `job` (status 7) at `now`: one transaction sets its next status and queues
 * its notification. Returns the job as it is after, or `undefined` when it was no longer
 * running (paused, deleted, ended elsewhere meanwhile): then nothing changed.
 */
export async function endRound(
  storage: Pick<Storage, 'transaction'> & { readonly crawlJobs: CrawlJobStore },
  jobId: number,
  now: number,
): Promise<StoredCrawlJob | undefined> {
  const job = await storage.crawlJobs.getJob(jobId);
  if (!job || job.status !== JobStatus.inProgress) return undefined;
  const end = endOfRound(
    job.settings,
    {
      roundsCompleted: job.counters.roundsCompleted,
      roundStartedAt: job.roundStartedAt,
      crawlSuccessesThisRound: job.counters.pageCrawlSuccessesThisRound,
    },
    now,
  );
  return storage.transaction(async ({ crawlJobs: store }) => {
    const changed = await store.updateJob(
      job.id,
      {
        status: end.status,
        nextRoundAt: end.nextRoundAt,
        ...(end.completedAt !== null ? { completedAt: end.completedAt } : {}),
        addRoundsCompleted: 1,
      },
      [JobStatus.inProgress],
    );
    if (!changed) return undefined;
    const after = (await store.getJob(job.id))!;
    if (after.settings.notifyWebhook !== '') {
      await store.enqueueWebhook({
        jobId: after.id,
        url: after.settings.notifyWebhook,
        payload: JSON.stringify(jobRecord(after, { now })),
        headers: {
          'X-Crawl-Name': after.name,
          'X-Crawl-Status': statusMessage(after.status, after.nextRoundAt, now),
        },
        at: now,
      });
    }
    return after;
  });
}
