/**
 * Bulk enhance jobs: submit a CSV or JSON file with a column mapping, follow each job's progress,
 * stop or delete it, download its results in every format, and see its coverage report as a chart
 * (docs/api.md#area-a-bulk-enhance-jobs).
 */
import { useState } from 'preact/hooks';
import { call, describeError } from '../api.ts';
import { ErrorMessage, Field, Select, Status, usePoll } from '../components.tsx';
import { BulkJobCard, type BulkJob, isFinal } from './bulk-job.tsx';
import {
  defaultMapping,
  RECORD_FIELDS,
  type RecordField,
  recordsOf,
  type Table,
  parseUpload,
} from './bulk-upload.ts';

export function BulkPage(props: { token: string }) {
  const [jobs, setJobs] = useState<BulkJob[]>();
  const [error, setError] = useState<string>();
  const [submitted, setSubmitted] = useState(0);
  const refresh = async () => {
    try {
      setJobs((await call<BulkJob[]>(props.token, '/kg/v3/enhance/bulk/status')).body);
      setError(undefined);
    } catch (problem) {
      setError(describeError(problem));
    }
  };
  const running = jobs === undefined || jobs.some((job) => !isFinal(job.status));
  // Live progress while a job runs; a slower check otherwise (a job may come from elsewhere).
  usePoll(refresh, running ? 1000 : 10_000, true, [running, submitted]);
  return (
    <section>
      <h1 tabIndex={-1}>Bulk jobs</h1>
      <SubmitForm token={props.token} onSubmitted={() => setSubmitted((n) => n + 1)} />
      <h2>Jobs</h2>
      <ErrorMessage message={error} />
      {jobs === undefined ? <Status>Loading…</Status> : null}
      {jobs?.length === 0 ? <p>No bulk job yet.</p> : null}
      <ul class="jobs">
        {(jobs ?? []).map((job) => (
          <BulkJobCard key={job.job_id} token={props.token} job={job} onChanged={refresh} />
        ))}
      </ul>
    </section>
  );
}

const FIELD_LABELS: Record<RecordField, string> = {
  type: 'Type',
  id: 'Entity id',
  name: 'Name',
  url: 'URL',
  email: 'E-mail',
  phone: 'Phone',
  location: 'Location',
  employer: 'Employer',
  title: 'Job title',
  school: 'School',
  description: 'Description',
  ip: 'IP address',
  customId: 'Custom id',
};

interface Upload {
  readonly fileName: string;
  readonly table: Table;
}

function SubmitForm(props: { token: string; onSubmitted: () => void }) {
  const [upload, setUpload] = useState<Upload>();
  const [mapping, setMapping] = useState<Partial<Record<RecordField, string>>>({});
  const [defaultType, setDefaultType] = useState('Organization');
  const [name, setName] = useState('');
  const [size, setSize] = useState('1');
  const [search, setSearch] = useState('OFF');
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const readFile = async (event: Event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    setError(undefined);
    setStatus('');
    if (!file) return setUpload(undefined);
    try {
      const table = await parseUpload(file.name, await file.text());
      setUpload({ fileName: file.name, table });
      setMapping(defaultMapping(table.columns));
      if (!name) setName(file.name.replace(/\.[^.]+$/, '').replace(/[^\w-]+/g, '_'));
    } catch (problem) {
      setUpload(undefined);
      setError(`${file.name}: ${describeError(problem)}`);
    }
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!upload) return setError('Choose a CSV or JSON file first.');
    setBusy(true);
    setError(undefined);
    try {
      const records = recordsOf(upload.table, mapping, defaultType);
      const query = { name, size, search: search === 'OFF' ? undefined : search };
      const { body } = await call<{ job_id: string }>(props.token, '/kg/v3/enhance/bulk', {
        method: 'POST',
        query,
        json: records,
      });
      setStatus(`Submitted job ${body.job_id} with ${records.length} records.`);
      props.onSubmitted();
    } catch (problem) {
      setError(describeError(problem));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-bulk-heading">
      <h2 id="new-bulk-heading">New bulk job</h2>
      <div class="field">
        <label for="bulk-file">File (CSV with a header row, JSON array, or JSON Lines)</label>
        <input id="bulk-file" type="file" accept=".csv,.json,.jsonl,.ndjson,.txt" onChange={readFile} />
      </div>
      {upload ? (
        <Mapping
          upload={upload}
          mapping={mapping}
          onChange={setMapping}
          defaultType={defaultType}
          onDefaultType={setDefaultType}
        />
      ) : null}
      <Field label="Job name" name="name" value={name} onInput={setName} />
      <Field
        label="Results per record (size)"
        name="size"
        inputMode="numeric"
        value={size}
        onInput={setSize}
      />
      <Select
        label="Web search"
        value={search}
        options={['OFF', 'ON', 'FALLBACK', 'SEARCHONLY']}
        onChange={setSearch}
      />
      <div class="actions">
        <button type="submit" disabled={busy || !upload}>
          {busy ? 'Submitting…' : 'Submit job'}
        </button>
      </div>
      <ErrorMessage message={error} />
      <Status>{status}</Status>
    </form>
  );
}

interface MappingProps {
  readonly upload: Upload;
  readonly mapping: Partial<Record<RecordField, string>>;
  readonly onChange: (mapping: Partial<Record<RecordField, string>>) => void;
  readonly defaultType: string;
  readonly onDefaultType: (type: string) => void;
}

function Mapping(props: MappingProps) {
  const { table } = props.upload;
  const options: [string, string][] = [
    ['', '— not in the file —'],
    ...table.columns.map((c): [string, string] => [c, c]),
  ];
  return (
    <fieldset class="mapping">
      <legend>
        Column mapping: {props.upload.fileName}, {table.rows.length} records, columns{' '}
        {table.columns.join(', ')}
      </legend>
      <Select
        label="Type of records without a type"
        value={props.defaultType}
        options={['Organization', 'Person']}
        onChange={props.onDefaultType}
      />
      <div class="mapping-grid">
        {RECORD_FIELDS.map((field) => (
          <Select
            key={field}
            label={`${FIELD_LABELS[field]} from column`}
            name={`map-${field}`}
            value={props.mapping[field] ?? ''}
            options={options}
            onChange={(column) => {
              const next = { ...props.mapping };
              if (column) next[field] = column;
              else delete next[field];
              props.onChange(next);
            }}
          />
        ))}
      </div>
    </fieldset>
  );
}
