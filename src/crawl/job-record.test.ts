import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredCrawlJob } from '../storage/index.ts';
import { jobRecord } from './job-record.ts';

const JOB: StoredCrawlJob = {
  id: 7,
  tokenId: 'tok_x',
  name: 'shop-2',
  settings: {
    apiUrl: '/v3/product',
    api: 'product',
    customHeaders: { 'User-Agent': 'ShopBot/1.0' },
    notifyWebhook: 'https://hooks.example/x',
    notifyEmail: '',
    obeyRobots: false,
    repeat: 0.5,
    maxRounds: 2,
    pageProcessPattern: '/p/',
    crawlDelay: 0.25,
    kgIngest: true,
    publicBaseUrl: 'http://quarry.local:8080',
  },
  status: 4,
  resumeStatus: null,
  createdAt: 1_700_000_000_123,
  completedAt: null,
  roundStartedAt: 1_700_000_100_999,
  nextRoundAt: 1_700_000_200_000,
  urlCount: 12,
  counters: {
    pageCrawlAttempts: 14,
    pageCrawlSuccesses: 11,
    pageCrawlSuccessesThisRound: 11,
    pageProcessAttempts: 9,
    pageProcessSuccesses: 8,
    pageProcessSuccessesThisRound: 8,
    objectsFound: 8,
    roundsCompleted: 1,
  },
  sentDoneNotification: true,
};

test('the record carries every field of docs/api.md#job-record with its JSON type', () => {
  const record = jobRecord(JOB, { now: 1_700_000_150_000, token: 's3cr3t' }) as unknown as Record<
    string,
    unknown
  >;
  const integers = [
    'maxHops',
    'maxRounds',
    'seedRecrawlFrequency',
    'jobCreationTimeUTC',
    'jobCompletionTimeUTC',
    'roundStartTime',
    'currentTime',
    'currentTimeUTC',
    'pageCrawlAttempts',
    'pageCrawlSuccesses',
    'pageCrawlSuccessesThisRound',
    'pageProcessAttempts',
    'pageProcessSuccesses',
    'pageProcessSuccessesThisRound',
    'objectsFound',
    'urlsHarvested',
    'roundsCompleted',
    'useCanonical',
    'obeyRobots',
    'useProxies',
    'sentJobDoneNotification',
  ];
  for (const field of integers) assert.ok(Number.isInteger(record[field]), field);
  const strings = [
    'name',
    'type',
    'apiUrl',
    'urlProcessPattern',
    'urlCrawlPattern',
    'pageProcessPattern',
    'urlCrawlRegEx',
    'urlProcessRegEx',
    'downloadJson',
    'downloadUrls',
    'notifyWebhook',
    'notifyEmail',
  ];
  for (const field of strings) assert.equal(typeof record[field], 'string', field);
  assert.equal(typeof record.crawlDelay, 'number');
  assert.equal(typeof record.repeat, 'number');
  assert.equal(typeof record.customHeaders, 'object');
  assert.deepEqual(record.jobStatus, { status: 4, message: 'Next round to start in 50 seconds.' });
  assert.equal(record.type, 'bulk');
  assert.equal(record.jobCreationTimeUTC, 1_700_000_000);
  assert.equal(record.roundStartTime, 1_700_000_100);
  assert.equal(record.jobCompletionTimeUTC, 0);
  assert.equal(record.currentTime, 1_700_000_150);
  assert.equal(record.urlsHarvested, 12);
  assert.equal(record.obeyRobots, 0);
  assert.equal(record.repeat, 0.5);
  assert.equal(record.crawlDelay, 0.25);
  assert.equal(record.kgIngest, 1);
  assert.equal(record.sentJobDoneNotification, 1);
  assert.equal(
    record.downloadJson,
    'http://quarry.local:8080/v3/bulk/data?token=s3cr3t&name=shop-2&format=json',
  );
  assert.equal(
    record.downloadUrls,
    'http://quarry.local:8080/v3/bulk/data?token=s3cr3t&name=shop-2&type=urls&format=csv',
  );
});

test('without a token (webhook payloads) the links carry none', () => {
  const record = jobRecord(JOB, { now: 0 });
  assert.equal(record.downloadJson, 'http://quarry.local:8080/v3/bulk/data?name=shop-2&format=json');
});
