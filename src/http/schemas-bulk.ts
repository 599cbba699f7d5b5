import { Type } from 'typebox';
import { authError, generalError } from './schemas-enhance.ts';

/**
 * Route schemas of the bulk enhance endpoints (docs/api.md#area-a-bulk-enhance-jobs). They document
 * the API; the semantic checks live in `bulk/` so every caller gets the same 400 messages.
 */

const text = (description: string) => Type.Optional(Type.String({ description }));
const flag = (description: string) =>
  Type.Optional(
    Type.Union([Type.Boolean(), Type.String()], { description: `${description} (default false)` }),
  );
const int = (description: string) =>
  Type.Optional(Type.Union([Type.Integer(), Type.String()], { description }));

export const bulkjobIdParams = Type.Object({
  bulkjobId: Type.String({ description: 'Bulkjob id, as returned by the submission (`bj_…`).' }),
});

export const singleResultParams = Type.Object({
  bulkjobId: Type.String({ description: 'Bulkjob id.' }),
  jobIdx: Type.String({ description: '0-based index of the record within the bulkjob.' }),
});

export const reportParams = Type.Object({
  bulkjobId: Type.String({ description: 'Bulkjob id.' }),
  reportId: Type.String({ description: 'Report id, from the job status `reports`.' }),
});

export const submitQuerystring = Type.Object(
  {
    token: text('API token (or send `Authorization: Bearer <token>`).'),
    name: text('Bulkjob name (default: the job id).'),
    size: int('Maximum matches per record, 1–100 (default 1).'),
    threshold: Type.Optional(
      Type.Union([Type.Number(), Type.String()], { description: 'Minimum score of a hit, 0–1.' }),
    ),
    refresh: flag('Refetch the origins of each matched entity.'),
    search: text('Search the web per record: ON (= true), OFF (= false), SEARCHONLY or FALLBACK.'),
    nonCanonicalFacts: flag('Also return values that lost when sources disagreed.'),
    jsonmode: text('`extended` adds the origins of every fact.'),
    webhookurl: text('http(s) URL that receives the job status record (POST, JSON) when the job ends.'),
  },
  { additionalProperties: true },
);

export const submitBody = Type.Array(Type.Object({}, { additionalProperties: true }), {
  description:
    'JSON array of query records: Organization or Person query records (`type` required) or id records ' +
    '`{"id": ..., "type"?, "customId"?}`. At most 1,000,000 records and 200 MiB; streamed.',
});

export const submitAck = Type.Object({
  job_id: Type.String(),
  bulkjobId: Type.String(),
});

const reportRecord = Type.Object(
  {
    reportId: Type.String(),
    status: Type.String(),
    format: Type.String(),
    spec: Type.String(),
    exportfile: Type.String(),
    exportSeparator: Type.String(),
    filter: Type.String(),
  },
  { additionalProperties: true },
);

const nullableInt = Type.Union([Type.Integer(), Type.Null()]);

export const statusRecordSchema = Type.Object(
  {
    job_id: Type.String(),
    name: Type.String(),
    refresh: Type.Boolean(),
    search: Type.String(),
    message: Type.String(),
    jobs_total: Type.Integer(),
    jobs_completed: Type.Integer(),
    status: Type.String(),
    estimate_remaining_time: nullableInt,
    submit_time_ms: Type.Integer(),
    start_time_ms: nullableInt,
    completed_time_ms: nullableInt,
    total_results: Type.Integer(),
    bulkjobId: Type.String(),
    totalJobs: Type.Integer(),
    finishedJobs: Type.Integer(),
    estimateRemainingTimeSec: nullableInt,
    submitTimeMs: Type.Integer(),
    startTimeMs: nullableInt,
    completedTimeMs: nullableInt,
    totalResults: Type.Integer(),
    fileSizeBytes: Type.Integer(),
    reports: Type.Array(reportRecord),
    pagesFetched: Type.Integer({ description: 'Pages refresh and search read for the records done.' }),
    pagesFailed: Type.Integer({ description: 'Pages they could not read (gone, refused, disallowed).' }),
    pagesFresh: Type.Integer({
      description: 'Pages not fetched again (fetched within QUARRY_REFRESH_MAX_AGE).',
    }),
  },
  { additionalProperties: true },
);

export const statusEnvelope = Type.Object({ code: Type.Integer(), content: statusRecordSchema });

export const stopAnswer = Type.Object({ status: Type.String(), message: Type.String() });

export const downloadQuerystring = Type.Object(
  {
    token: text('API token.'),
    head: int('Return the first n results (default 0: all).'),
    from: int('1-based index of the first result (default 0: from the start).'),
    size: int('Most results, counted from `from` (default -1: all).'),
    onlyMatches: flag('Only records with at least one match'),
    format: text('jsonl (default), json, csv, xls or xlsx.'),
    exportspec: text('Columns for csv/xls/xlsx: `path` or `path,Header`, `;`-separated.'),
    exportfile: text('File name for Content-Disposition (sanitised).'),
    exportseparator: text('Separator of list values in columnar formats (default `;`).'),
    exportquery: flag('Prefix columnar rows with the query fields'),
    filter: text('Entity paths to keep, `;`-separated.'),
    filterExclude: text('Entity paths to remove, `;`-separated.'),
    wait: int('Seconds to wait for a large export (default 120; 0 only starts it).'),
  },
  { additionalProperties: true },
);

export const downloadBody = Type.Object(
  {
    head: int('As the GET query parameter.'),
    from: int('As the GET query parameter.'),
    size: int('As the GET query parameter.'),
    onlyMatches: flag('As the GET query parameter'),
    format: text('As the GET query parameter.'),
    exportspec: text('As the GET query parameter.'),
    exportfile: text('As the GET query parameter.'),
    exportseparator: text('As the GET query parameter.'),
    exportquery: flag('As the GET query parameter'),
    filter: text('As the GET query parameter.'),
    filterExclude: text('As the GET query parameter.'),
    wait: int('As the GET query parameter.'),
  },
  { additionalProperties: true },
);

export const reportQuerystring = Type.Object(
  {
    token: text('API token.'),
    format: text('`json` for the JSON form; the CSV otherwise, whatever `Accept` says.'),
  },
  { additionalProperties: true },
);

/** Error responses every bulk endpoint documents. */
export const bulkErrorResponses = {
  400: generalError,
  401: authError,
  404: generalError,
  413: generalError,
  500: generalError,
};

export { generalError };
