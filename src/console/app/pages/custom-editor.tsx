/** The rule set editor of the Custom rules page: fields, validation messages, save, preview. */
import { useState } from 'preact/hooks';
import { ApiError, call, describeError } from '../api.ts';
import { ErrorMessage, Field, Status } from '../components.tsx';

/** A stored rule set as `GET /v3/custom` lists it. */
export interface RuleSet {
  readonly api: string;
  readonly urlPattern: string;
  readonly rules: unknown[];
  readonly testUrl?: string;
  readonly prefilters?: string[];
  readonly hash: string;
}

/** The editor's fields, as text. */
export interface Draft {
  readonly api: string;
  readonly urlPattern: string;
  readonly testUrl: string;
  readonly prefilters: string;
  readonly rules: string;
}

type FieldName = keyof Draft;
type Problems = Partial<Record<FieldName | 'form', string>>;

const EMPTY: Draft = {
  api: '/api/article',
  urlPattern: '',
  testUrl: '',
  prefilters: '',
  rules: '[\n  {"name": "headline", "selector": "h1"}\n]',
};

const BUILT_IN_APIS = ['/api/analyze', '/api/article', '/api/product', '/api/organization', '/api/person'];

/** The rule set of a draft, or the problems that keep it from being one (checked here before the server). */
function ruleSetOf(draft: Draft): { ruleSet?: Record<string, unknown>; problems: Problems } {
  let rules: unknown;
  try {
    rules = JSON.parse(draft.rules);
  } catch (error) {
    return { problems: { rules: `Rules are not valid JSON: ${(error as Error).message}` } };
  }
  if (!Array.isArray(rules)) return { problems: { rules: 'Rules must be a JSON array of rules.' } };
  const ruleSet: Record<string, unknown> = { api: draft.api.trim(), urlPattern: draft.urlPattern, rules };
  if (draft.testUrl.trim()) ruleSet.testUrl = draft.testUrl.trim();
  const prefilters = draft.prefilters
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (prefilters.length) ruleSet.prefilters = prefilters;
  return { ruleSet, problems: {} };
}

/** The server names the parameter in its 400 (`Invalid parameter 'rules[0].selector': …`): put it under that field. */
function problemsOf(error: unknown): Problems {
  const message = error instanceof ApiError ? error.message : describeError(error);
  const named = /Invalid parameter '([A-Za-z]+)/.exec(message)?.[1] as FieldName | undefined;
  const known: FieldName[] = ['api', 'urlPattern', 'testUrl', 'prefilters', 'rules'];
  if (named && known.includes(named)) return { [named]: message };
  return { form: message };
}

interface EditorProps {
  readonly token: string;
  readonly initial?: Draft;
  readonly onSaved: () => void;
  readonly onNew: () => void;
}

export function RuleSetEditor(props: EditorProps) {
  const [draft, setDraft] = useState<Draft>(props.initial ?? EMPTY);
  const [problems, setProblems] = useState<Problems>({});
  const [status, setStatus] = useState('');
  const set = (field: FieldName) => (value: string) => setDraft({ ...draft, [field]: value });
  const save = async (event: Event) => {
    event.preventDefault();
    setStatus('');
    const { ruleSet, problems: local } = ruleSetOf(draft);
    setProblems(local);
    if (!ruleSet) return;
    try {
      const { body } = await call<{ hashes: string[] }>(props.token, '/v3/custom', {
        method: 'POST',
        json: ruleSet,
      });
      setStatus(`Saved: hash ${body.hashes.join(', ')}.`);
      props.onSaved();
    } catch (error) {
      setProblems(problemsOf(error));
    }
  };
  return (
    <>
      <form class="card editor" onSubmit={save} aria-labelledby="editor-heading" noValidate>
        <h2 id="editor-heading">
          {props.initial ? `Edit ${props.initial.api} ${props.initial.urlPattern}` : 'New rule set'}
        </h2>
        <datalist id="built-in-apis">
          {BUILT_IN_APIS.map((api) => (
            <option key={api} value={api} />
          ))}
        </datalist>
        <Field
          label="API"
          name="api"
          list="built-in-apis"
          value={draft.api}
          onInput={set('api')}
          error={problems.api}
          hint="A built-in API to extend (/api/article…) or a new name."
        />
        <Field
          label="URL pattern (regular expression)"
          name="urlPattern"
          value={draft.urlPattern}
          onInput={set('urlPattern')}
          error={problems.urlPattern}
          hint="Searched anywhere in the page URL; ^…$ to anchor."
        />
        <Field
          label="Test URL"
          name="testUrl"
          type="url"
          value={draft.testUrl}
          onInput={set('testUrl')}
          error={problems.testUrl}
        />
        <Field
          label="Prefilters (CSS selectors removed first, one per line)"
          name="prefilters"
          multiline={2}
          value={draft.prefilters}
          onInput={set('prefilters')}
          error={problems.prefilters}
        />
        <Field
          label="Rules (JSON)"
          name="rules"
          multiline={10}
          value={draft.rules}
          onInput={set('rules')}
          error={problems.rules}
          hint='[{"name", "selector" | "value", "filters"?, "rules"?}], see docs/api.md#rules.'
        />
        <div class="actions">
          <button type="submit">Save rule set</button>
          {props.initial ? (
            <button type="button" onClick={props.onNew}>
              New rule set instead
            </button>
          ) : null}
        </div>
        <ErrorMessage message={problems.form} />
        <Status>{status}</Status>
      </form>
      <Preview token={props.token} draft={draft} onProblems={setProblems} />
    </>
  );
}

interface PreviewAnswer {
  readonly objects: unknown[];
  readonly urlPatternMatches?: boolean;
  readonly request?: { pageUrl?: string };
}

function Preview(props: { token: string; draft: Draft; onProblems: (problems: Problems) => void }) {
  const [source, setSource] = useState<'url' | 'html'>('url');
  const [url, setUrl] = useState('');
  const [html, setHtml] = useState('');
  const [answer, setAnswer] = useState<PreviewAnswer>();
  const [error, setError] = useState<string>();
  const run = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setAnswer(undefined);
    const { ruleSet, problems } = ruleSetOf(props.draft);
    props.onProblems(problems);
    if (!ruleSet) return setError('Fix the rule set first.');
    const page =
      source === 'url'
        ? { url: url.trim() || undefined }
        : { html, url: url.trim() || 'https://example.com/' };
    try {
      const json = { ...ruleSet, ...page };
      setAnswer(
        (await call<PreviewAnswer>(props.token, '/v3/custom/preview', { method: 'POST', json })).body,
      );
    } catch (problem) {
      const problems = problemsOf(problem);
      props.onProblems(problems);
      setError(problems.form ?? 'The rule set is not valid: see the messages above.');
    }
  };
  return (
    <form class="card preview" onSubmit={run} aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <fieldset class="choice">
        <legend>Page to try the rules on</legend>
        <label>
          <input type="radio" name="source" checked={source === 'url'} onChange={() => setSource('url')} /> A
          URL
        </label>
        <label>
          <input type="radio" name="source" checked={source === 'html'} onChange={() => setSource('html')} />{' '}
          Pasted HTML
        </label>
      </fieldset>
      <Field
        label={source === 'url' ? 'Page URL (empty: the test URL)' : 'Page URL (names the pasted page)'}
        name="previewUrl"
        type="url"
        value={url}
        onInput={setUrl}
      />
      {source === 'html' ? (
        <Field label="Page HTML" name="html" multiline={8} value={html} onInput={setHtml} />
      ) : null}
      <div class="actions">
        <button type="submit">Preview</button>
      </div>
      <ErrorMessage message={error} />
      {answer ? (
        <div class="preview-result">
          <Status>
            {answer.objects.length} objects from {answer.request?.pageUrl ?? 'the page'}; URL pattern{' '}
            {answer.urlPatternMatches ? 'matches' : 'does not match'} it.
          </Status>
          <h3>Extracted objects</h3>
          <pre>{JSON.stringify(answer.objects, null, 2)}</pre>
        </div>
      ) : null}
    </form>
  );
}
