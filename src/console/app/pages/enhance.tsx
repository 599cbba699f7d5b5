/**
 * The enhance playground: a query form (`POST /kg/v3/enhance`), the candidates with their
 * calibrated score, and each candidate's explanation (searchInfo's per-feature contributions) as
 * a chart.
 */
import { useState } from 'preact/hooks';
import { call, describeError } from '../api.ts';
import { Bars, ErrorMessage, Field, Select, Status, formatScore } from '../components.tsx';
import { entityPath } from '../router.ts';

type EntityType = 'Organization' | 'Person';

interface QueryField {
  readonly key: string;
  readonly label: string;
  readonly personOnly?: boolean;
  readonly inputType?: string;
}

const QUERY_FIELDS: readonly QueryField[] = [
  { key: 'name', label: 'Name' },
  { key: 'url', label: 'URL (site or any page of it)', inputType: 'url' },
  { key: 'email', label: 'E-mail', personOnly: true, inputType: 'email' },
  { key: 'phone', label: 'Phone', inputType: 'tel' },
  { key: 'location', label: 'Location' },
  { key: 'employer', label: 'Employer', personOnly: true },
  { key: 'title', label: 'Job title', personOnly: true },
  { key: 'school', label: 'School', personOnly: true },
  { key: 'description', label: 'Description' },
  { key: 'ip', label: 'IP address' },
  { key: 'id', label: 'Entity id' },
];

interface Candidate {
  readonly mlScore: number;
  readonly baseMlScore?: number;
  readonly debugInfo?: { message?: string; contributions?: Record<string, number> };
}

interface Hit {
  readonly score: number;
  readonly entity: { id: string; name?: string; type?: string } | null;
}

export interface EnhanceAnswer {
  readonly hits: number;
  readonly data: Hit[];
  readonly errors?: string[];
  readonly searchInfo?: Record<string, Candidate>;
}

/** The query body: the non-empty fields that apply to the type, and the options. */
function queryBody(type: EntityType, values: Record<string, string>, size: string, threshold: string) {
  const body: Record<string, unknown> = { type };
  for (const field of QUERY_FIELDS) {
    const value = values[field.key]?.trim();
    if (value && !(field.personOnly && type === 'Organization')) body[field.key] = value;
  }
  if (size.trim()) body.size = Number(size);
  if (threshold.trim()) body.threshold = Number(threshold);
  return body;
}

export function EnhancePage(props: { token: string }) {
  const [type, setType] = useState<EntityType>('Organization');
  const [values, setValues] = useState<Record<string, string>>({});
  const [size, setSize] = useState('5');
  const [threshold, setThreshold] = useState('');
  const [answer, setAnswer] = useState<EnhanceAnswer>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = queryBody(type, values, size, threshold);
      setAnswer(
        (await call<EnhanceAnswer>(props.token, '/kg/v3/enhance', { method: 'POST', json: body })).body,
      );
    } catch (problem) {
      setAnswer(undefined);
      setError(describeError(problem));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section>
      <h1 tabIndex={-1}>Enhance</h1>
      <p>
        Describe an organization or a person with whatever you know; Quarry says which entity it is and why.
      </p>
      <form class="query-form" onSubmit={submit} aria-label="Enhance query">
        <Select
          label="Type"
          name="type"
          value={type}
          options={['Organization', 'Person']}
          onChange={(value) => setType(value as EntityType)}
        />
        {QUERY_FIELDS.filter((field) => !(field.personOnly && type === 'Organization')).map((field) => (
          <Field
            key={field.key}
            label={field.label}
            name={field.key}
            type={field.inputType}
            value={values[field.key] ?? ''}
            onInput={(value) => setValues({ ...values, [field.key]: value })}
          />
        ))}
        <Field label="Results (size, 1–100)" name="size" inputMode="numeric" value={size} onInput={setSize} />
        <Field
          label="Threshold (0–1, empty: default)"
          name="threshold"
          inputMode="decimal"
          value={threshold}
          onInput={setThreshold}
        />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Searching…' : 'Enhance'}
          </button>
        </div>
      </form>
      <ErrorMessage message={error} />
      {answer ? <Results answer={answer} /> : null}
    </section>
  );
}

/** Every candidate considered, best first: the returned hits and those below the threshold. */
function candidatesOf(answer: EnhanceAnswer): { id: string; score: number; hit?: Hit; info?: Candidate }[] {
  const hits = new Map(answer.data.filter((hit) => hit.entity).map((hit) => [hit.entity!.id, hit]));
  const ids = new Set([...hits.keys(), ...Object.keys(answer.searchInfo ?? {})]);
  return [...ids]
    .map((id) => {
      const info = answer.searchInfo?.[id];
      const hit = hits.get(id);
      return { id, hit, info, score: hit?.score ?? info?.mlScore ?? 0 };
    })
    .sort((a, b) => b.score - a.score);
}

function Results(props: { answer: EnhanceAnswer }) {
  const candidates = candidatesOf(props.answer);
  return (
    <section class="results" aria-labelledby="results-heading">
      <h2 id="results-heading">Candidates</h2>
      <Status>
        {props.answer.hits} {props.answer.hits === 1 ? 'hit' : 'hits'}; {candidates.length}{' '}
        {candidates.length === 1 ? 'candidate' : 'candidates'} considered.
      </Status>
      {(props.answer.errors ?? []).map((message) => (
        <p class="message note" key={message}>
          {message}
        </p>
      ))}
      <ol class="candidates">
        {candidates.map((candidate) => (
          <CandidateCard key={candidate.id} {...candidate} />
        ))}
      </ol>
    </section>
  );
}

function CandidateCard(props: { id: string; score: number; hit?: Hit; info?: Candidate }) {
  const name = props.hit?.entity?.name;
  const contributions = Object.entries(props.info?.debugInfo?.contributions ?? {})
    .map(([label, value]) => ({ label, value }))
    .sort((a, b) => Math.abs(b.value) - Math.abs(a.value));
  return (
    <li class="card candidate">
      <h3>
        <a href={entityPath(props.id)}>{name ?? props.id}</a>{' '}
        {props.hit ? <span class="badge hit">hit</span> : <span class="badge">below threshold</span>}
      </h3>
      <p class="score">
        Score <strong data-score={props.score}>{formatScore(props.score)}</strong>
        {props.info?.baseMlScore !== undefined && props.info.baseMlScore !== props.info.mlScore
          ? ` (before refresh/search: ${formatScore(props.info.baseMlScore)})`
          : ''}
        {name ? <span class="muted"> · {props.id}</span> : null}
      </p>
      {props.info?.debugInfo?.message ? <p>{props.info.debugInfo.message}</p> : null}
      {contributions.length > 0 ? (
        <Bars
          caption={`Why: what each feature added to or took from the score of ${name ?? props.id} (log-odds)`}
          bars={contributions}
          scale="signed"
          labelHeader="Feature"
          valueHeader="Contribution"
          format={(value) => (value > 0 ? `+${value.toFixed(2)}` : value.toFixed(2))}
        />
      ) : null}
    </li>
  );
}
