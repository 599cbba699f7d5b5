/** One bulk enhance job: progress, stop, delete, downloads and its coverage report. */
import { useState } from 'preact/hooks';
import { call, describeError, downloadUrl } from '../api.ts';
import { Bars, ErrorMessage, Select, Status } from '../components.tsx';

interface Report {
  readonly reportId: string;
  readonly status: string;
  readonly format: string;
  readonly spec: string;
}

/** The fields of a status record the console shows (docs/api.md#bulk-job-status). */
export interface BulkJob {
  readonly job_id: string;
  readonly name: string;
  readonly status: string;
  readonly message: string;
  readonly jobs_total: number;
  readonly jobs_completed: number;
  readonly estimate_remaining_time: number | null;
  readonly submit_time_ms: number;
  readonly reports: Report[];
}

const FINAL = new Set([
  'COMPLETE',
  'COMPLETE_WITH_FAILURES',
  'STOPPED',
  'ERROR_FINALIZING',
  'ERROR_SCHEDULING',
]);

export function isFinal(status: string): boolean {
  return FINAL.has(status);
}

const FORMATS = [
  ['jsonl', 'JSON Lines'],
  ['json', 'JSON'],
  ['csv', 'CSV'],
  ['xls', 'XLS'],
  ['xlsx', 'XLSX'],
] as const;

interface CardProps {
  readonly token: string;
  readonly job: BulkJob;
  readonly onChanged: () => void;
}

export function BulkJobCard(props: CardProps) {
  const { job, token } = props;
  const [error, setError] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const act = async (action: 'stop' | 'delete') => {
    setError(undefined);
    try {
      await call(token, `/kg/v3/enhance/bulk/${encodeURIComponent(job.job_id)}/${action}`);
      setConfirming(false);
      props.onChanged();
    } catch (problem) {
      setError(describeError(problem));
    }
  };
  const headingId = `job-${job.job_id}`;
  const downloadable = isFinal(job.status);
  return (
    <li class="card job" aria-labelledby={headingId} data-job-id={job.job_id}>
      <h3 id={headingId}>
        {job.name || job.job_id} <span class={`badge status-${job.status.toLowerCase()}`}>{job.status}</span>
      </h3>
      <p class="muted">
        {job.job_id} · submitted {new Date(job.submit_time_ms).toLocaleString()}
      </p>
      <label class="progress">
        <span>
          {job.jobs_completed} of {job.jobs_total} records
          {job.estimate_remaining_time ? `, about ${job.estimate_remaining_time} s left` : ''}
        </span>
        <progress max={Math.max(job.jobs_total, 1)} value={job.jobs_completed} />
      </label>
      <p>{job.message}</p>
      <div class="actions">
        {!downloadable ? (
          <button type="button" onClick={() => act('stop')}>
            Stop
          </button>
        ) : null}
        {confirming ? (
          <>
            <button type="button" class="danger" onClick={() => act('delete')}>
              Confirm delete
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </div>
      <ErrorMessage message={error} />
      {downloadable ? <Downloads token={token} job={job} /> : null}
      {downloadable && job.reports.length > 0 ? <Coverage token={token} job={job} /> : null}
    </li>
  );
}

function Downloads(props: { token: string; job: BulkJob }) {
  const base = props.job.name.replace(/[^\w-]+/g, '_') || props.job.job_id;
  return (
    <nav class="downloads" aria-label={`Downloads of ${props.job.name || props.job.job_id}`}>
      <span>Download:</span>
      <ul>
        {FORMATS.map(([format, label]) => (
          <li key={format}>
            <a
              href={downloadUrl(props.token, `/kg/v3/enhance/bulk/${encodeURIComponent(props.job.job_id)}`, {
                format,
                exportfile: `${base}.${format}`,
              })}
              download={`${base}.${format}`}
            >
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

interface CoverageReport {
  readonly columns: string[];
  readonly coverage: Record<string, number>;
  readonly rows: unknown[][];
}

function Coverage(props: { token: string; job: BulkJob }) {
  const { reports } = props.job;
  const [reportId, setReportId] = useState(reports[0].reportId);
  const [report, setReport] = useState<CoverageReport>();
  const [error, setError] = useState<string>();
  const show = async () => {
    setError(undefined);
    try {
      const path = `/kg/v3/enhance/bulk/report/${encodeURIComponent(props.job.job_id)}/${encodeURIComponent(reportId)}`;
      setReport((await call<CoverageReport>(props.token, path, { query: { format: 'json' } })).body);
    } catch (problem) {
      setReport(undefined);
      setError(describeError(problem));
    }
  };
  const options = reports.map((r): [string, string] => [
    r.reportId,
    `${r.reportId} (${r.format}${r.spec ? `, ${r.spec}` : ''})`,
  ]);
  return (
    <div class="coverage">
      {reports.length > 1 ? (
        <Select label="Coverage report" value={reportId} options={options} onChange={setReportId} />
      ) : null}
      <div class="actions">
        <button type="button" onClick={show}>
          Show coverage report
        </button>
      </div>
      <ErrorMessage message={error} />
      {report ? (
        <>
          <Status>{report.rows.length} records in the report.</Status>
          <Bars
            caption="Coverage: the share of records that have each field"
            bars={Object.entries(report.coverage).map(([label, value]) => ({ label, value }))}
            scale="fraction"
            labelHeader="Field"
            valueHeader="Records with it"
            format={(value) => `${(value * 100).toFixed(1)} %`}
          />
        </>
      ) : null}
    </div>
  );
}
