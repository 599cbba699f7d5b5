/**
 * Bulk extract jobs (docs/api.md#area-c-bulk-extract-jobs): create one, follow its counters live,
 * pause, resume, restart or delete it, and download its objects and URL report.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, describeError, downloadUrl } from '../api.ts';
import { Checkbox, ErrorMessage, Field, Select, Status, usePoll } from '../components.tsx';

/** The fields of a job record the console shows (docs/api.md#job-record). */
interface ExtractJob {
  readonly name: string;
  readonly apiUrl: string;
  readonly jobStatus: { status: number; message: string };
  readonly [counter: string]: unknown;
}

const COUNTERS = [
  ['pageCrawlAttempts', 'Fetch attempts'],
  ['pageCrawlSuccesses', 'Pages fetched'],
  ['pageProcessAttempts', 'Pages processed'],
  ['pageProcessSuccesses', 'Pages extracted'],
  ['objectsFound', 'Objects found'],
  ['urlsHarvested', 'URLs'],
  ['roundsCompleted', 'Rounds completed'],
] as const;

/** Codes of a job that is done or waiting (docs/api.md#job-status-codes): no need to poll fast. */
const SETTLED = new Set([1, 5, 6, 9, 10]);

export function ExtractPage(props: { token: string }) {
  const [jobs, setJobs] = useState<ExtractJob[]>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const refresh = async () => {
    try {
      setJobs((await call<{ jobs: ExtractJob[] }>(props.token, '/v3/bulk')).body.jobs);
      setError(undefined);
    } catch (problem) {
      setError(describeError(problem));
    }
  };
  const active = jobs === undefined || jobs.some((job) => !SETTLED.has(job.jobStatus.status));
  usePoll(refresh, active ? 1000 : 10_000, true, [active, version]);
  return (
    <section>
      <h1 tabIndex={-1}>Bulk extract</h1>
      <CreateForm token={props.token} onCreated={() => setVersion((n) => n + 1)} />
      <h2>Jobs</h2>
      <ErrorMessage message={error} />
      {jobs === undefined ? <Status>Loading…</Status> : null}
      {jobs?.length === 0 ? <p>No bulk extract job yet.</p> : null}
      <ul class="jobs">
        {(jobs ?? []).map((job) => (
          <ExtractJobCard key={job.name} token={props.token} job={job} onChanged={refresh} />
        ))}
      </ul>
    </section>
  );
}

const BUILT_IN_APIS = ['analyze', 'article', 'product', 'organization', 'person'];

/** The built-in APIs and the new ones the token's Custom API rule sets define. */
function useApis(token: string): string[] {
  const [apis, setApis] = useState(BUILT_IN_APIS);
  useEffect(() => {
    call<{ api: string }[]>(token, '/v3/custom').then(
      ({ body }) => {
        const custom = body.map((ruleSet) => ruleSet.api.replace(/^\/?(api\/)?/, ''));
        setApis([...new Set([...BUILT_IN_APIS, ...custom])]);
      },
      () => {}, // The built-in APIs still work.
    );
  }, [token]);
  return apis;
}

function CreateForm(props: { token: string; onCreated: () => void }) {
  const apis = useApis(props.token);
  const [name, setName] = useState('');
  const [urls, setUrls] = useState('');
  const [api, setApi] = useState('analyze');
  const [obeyRobots, setObeyRobots] = useState(true);
  const [crawlDelay, setCrawlDelay] = useState('0.25');
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setStatus('');
    const json = {
      name: name.trim(),
      urls: urls.split(/\s+/).filter(Boolean).join(' '),
      apiUrl: `/v3/${api}`,
      obeyRobots: obeyRobots ? 1 : 0,
      crawlDelay: crawlDelay.trim() === '' ? undefined : Number(crawlDelay),
    };
    try {
      await call(props.token, '/v3/bulk', { method: 'POST', json });
      setStatus(`Created job ${json.name}.`);
      props.onCreated();
    } catch (problem) {
      setError(describeError(problem));
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-extract-heading">
      <h2 id="new-extract-heading">New bulk extract job</h2>
      <Field label="Job name (letters, digits, _ and -)" name="name" value={name} onInput={setName} />
      <Field label="URLs (one per line)" name="urls" multiline={4} value={urls} onInput={setUrls} />
      <Select label="Extraction API" value={api} options={apis} onChange={setApi} />
      <Field
        label="Crawl delay per host (seconds)"
        name="crawlDelay"
        inputMode="decimal"
        value={crawlDelay}
        onInput={setCrawlDelay}
      />
      <Checkbox label="Obey robots.txt" checked={obeyRobots} onChange={setObeyRobots} />
      <div class="actions">
        <button type="submit">Create job</button>
      </div>
      <ErrorMessage message={error} />
      <Status>{status}</Status>
    </form>
  );
}

type Action = 'pause' | 'resume' | 'restart' | 'delete';

const ACTION_QUERY: Record<Action, Record<string, string>> = {
  pause: { pause: '1' },
  resume: { pause: '0' },
  restart: { restart: '1' },
  delete: { delete: '1' },
};

function ExtractJobCard(props: { token: string; job: ExtractJob; onChanged: () => void }) {
  const { job, token } = props;
  const [error, setError] = useState<string>();
  const [confirming, setConfirming] = useState<'restart' | 'delete'>();
  const act = async (action: Action) => {
    setError(undefined);
    try {
      await call(token, '/v3/bulk', { query: { name: job.name, ...ACTION_QUERY[action] } });
      setConfirming(undefined);
      props.onChanged();
    } catch (problem) {
      setError(describeError(problem));
    }
  };
  const paused = job.jobStatus.status === 6;
  return (
    <li class="card job" aria-labelledby={`crawl-${job.name}`} data-job-name={job.name}>
      <h3 id={`crawl-${job.name}`}>
        {job.name} <span class="badge">{job.apiUrl}</span>
      </h3>
      <p class="job-status" data-status={job.jobStatus.status}>
        {job.jobStatus.message}
      </p>
      <dl class="counters">
        {COUNTERS.map(([key, label]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd data-counter={key}>{String(job[key] ?? 0)}</dd>
          </div>
        ))}
      </dl>
      <div class="actions">
        <button type="button" onClick={() => act(paused ? 'resume' : 'pause')}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        {confirming ? (
          <>
            <button type="button" class="danger" onClick={() => act(confirming)}>
              Confirm {confirming}
            </button>
            <button type="button" onClick={() => setConfirming(undefined)}>
              Cancel
            </button>
          </>
        ) : (
          <>
            <button type="button" onClick={() => setConfirming('restart')}>
              Restart
            </button>
            <button type="button" onClick={() => setConfirming('delete')}>
              Delete
            </button>
          </>
        )}
      </div>
      <ErrorMessage message={error} />
      <ExtractDownloads token={token} name={job.name} />
    </li>
  );
}

function ExtractDownloads(props: { token: string; name: string }) {
  const links = [
    ['Objects (JSON)', { format: 'json' }],
    ['Objects (CSV)', { format: 'csv' }],
    ['URL report (JSON)', { format: 'json', type: 'urls' }],
    ['URL report (CSV)', { format: 'csv', type: 'urls' }],
  ] as const;
  return (
    <nav class="downloads" aria-label={`Downloads of ${props.name}`}>
      <span>Download:</span>
      <ul>
        {links.map(([label, query]) => (
          <li key={label}>
            <a href={downloadUrl(props.token, '/v3/bulk/data', { name: props.name, ...query })} download>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
