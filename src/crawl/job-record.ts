/**
 * The bulk extract job record (docs/api.md#job-record): every field of the table,
 * with real values. Times in the record are whole seconds since the epoch (UTC), as the
 * reference service reports them; 0 means "not yet".
 */
import type { StoredCrawlJob } from '../storage/index.ts';
import { statusMessage } from './job-status.ts';

/** The job record as answered by `/v3/bulk` and POSTed to `notifyWebhook`. */
export interface CrawlJobRecord {
  readonly name: string;
  readonly type: 'bulk';
  readonly jobStatus: { readonly status: number; readonly message: string };
  readonly apiUrl: string;
  readonly maxHops: number;
  readonly maxRounds: number;
  readonly seedRecrawlFrequency: number;
  readonly crawlDelay: number;
  readonly urlProcessPattern: string;
  readonly urlCrawlPattern: string;
  readonly pageProcessPattern: string;
  readonly urlCrawlRegEx: string;
  readonly urlProcessRegEx: string;
  readonly downloadJson: string;
  readonly downloadUrls: string;
  readonly jobCreationTimeUTC: number;
  readonly jobCompletionTimeUTC: number;
  readonly roundStartTime: number;
  readonly currentTime: number;
  readonly currentTimeUTC: number;
  readonly pageCrawlAttempts: number;
  readonly pageCrawlSuccesses: number;
  readonly pageCrawlSuccessesThisRound: number;
  readonly pageProcessAttempts: number;
  readonly pageProcessSuccesses: number;
  readonly pageProcessSuccessesThisRound: number;
  readonly objectsFound: number;
  readonly urlsHarvested: number;
  readonly roundsCompleted: number;
  readonly useCanonical: number;
  readonly obeyRobots: number;
  readonly useProxies: number;
  readonly repeat: number;
  readonly sentJobDoneNotification: number;
  readonly notifyWebhook: string;
  readonly notifyEmail: string;
  readonly customHeaders: Readonly<Record<string, string>>;
  /** Added: 1 when extracted organizations and people are merged into the knowledge graph. */
  readonly kgIngest: number;
}

const seconds = (ms: number | null): number => (ms === null ? 0 : Math.floor(ms / 1000));

/**
 * A download link of the job. With `token` (the caller's own secret, when answering a request)
 * the link works as is; without it (webhook payloads: secrets are not stored) the caller adds it.
 */
export function downloadLink(
  job: StoredCrawlJob,
  query: { format: 'json' | 'csv'; type?: 'urls' },
  token?: string,
): string {
  const params = new URLSearchParams();
  if (token) params.set('token', token);
  params.set('name', job.name);
  if (query.type) params.set('type', query.type);
  params.set('format', query.format);
  return `${job.settings.publicBaseUrl}/v3/bulk/data?${params.toString()}`;
}

/** Renders the record of `job` at time `now` (epoch ms). */
export function jobRecord(job: StoredCrawlJob, options: { now: number; token?: string }): CrawlJobRecord {
  const { settings, counters } = job;
  return {
    name: job.name,
    type: 'bulk',
    jobStatus: { status: job.status, message: statusMessage(job.status, job.nextRoundAt, options.now) },
    apiUrl: settings.apiUrl,
    // Bulk jobs fetch exactly the submitted URLs: no links are followed, seeds are not
    // recrawled on their own schedule (rounds follow `repeat`).
    maxHops: 0,
    maxRounds: settings.maxRounds,
    seedRecrawlFrequency: -1,
    crawlDelay: settings.crawlDelay,
    urlProcessPattern: '',
    urlCrawlPattern: '',
    pageProcessPattern: settings.pageProcessPattern,
    urlCrawlRegEx: '',
    urlProcessRegEx: '',
    downloadJson: downloadLink(job, { format: 'json' }, options.token),
    downloadUrls: downloadLink(job, { format: 'csv', type: 'urls' }, options.token),
    jobCreationTimeUTC: seconds(job.createdAt),
    jobCompletionTimeUTC: seconds(job.completedAt),
    roundStartTime: seconds(job.roundStartedAt),
    currentTime: seconds(options.now),
    currentTimeUTC: seconds(options.now),
    pageCrawlAttempts: counters.pageCrawlAttempts,
    pageCrawlSuccesses: counters.pageCrawlSuccesses,
    pageCrawlSuccessesThisRound: counters.pageCrawlSuccessesThisRound,
    pageProcessAttempts: counters.pageProcessAttempts,
    pageProcessSuccesses: counters.pageProcessSuccesses,
    pageProcessSuccessesThisRound: counters.pageProcessSuccessesThisRound,
    objectsFound: counters.objectsFound,
    urlsHarvested: job.urlCount,
    roundsCompleted: counters.roundsCompleted,
    // Pages are identified by the submitted URL, not by a canonical link; no proxies are used.
    useCanonical: 0,
    obeyRobots: settings.obeyRobots ? 1 : 0,
    useProxies: 0,
    repeat: settings.repeat,
    sentJobDoneNotification: job.sentDoneNotification ? 1 : 0,
    notifyWebhook: settings.notifyWebhook,
    notifyEmail: settings.notifyEmail,
    customHeaders: settings.customHeaders,
    kgIngest: settings.kgIngest ? 1 : 0,
  };
}
