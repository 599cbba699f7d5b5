/**
 * Custom API rule sets (docs/api.md#area-b-custom-api): the token's rule sets, an editor whose
 * validation messages sit under the field they concern (the server's 400 names it), and a preview
 * on a URL or on pasted HTML (`POST /v3/custom/preview`, nothing saved).
 */
import { useState } from 'preact/hooks';
import { ApiError, call, describeError } from '../api.ts';
import { ErrorMessage, Status, usePoll } from '../components.tsx';
import { type Draft, RuleSetEditor, type RuleSet } from './custom-editor.tsx';

export function CustomPage(props: { token: string }) {
  const [ruleSets, setRuleSets] = useState<RuleSet[]>();
  const [editing, setEditing] = useState<Draft>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const load = async () => {
    try {
      setRuleSets((await call<RuleSet[]>(props.token, '/v3/custom')).body);
    } catch (problem) {
      setError(describeError(problem));
    }
  };
  usePoll(load, 60_000, true, [version]);
  const remove = async (ruleSet: RuleSet) => {
    setError(undefined);
    try {
      await call(props.token, '/v3/custom', {
        method: 'DELETE',
        json: { api: ruleSet.api, urlPattern: ruleSet.urlPattern },
      });
      setVersion((n) => n + 1);
    } catch (problem) {
      setError(problem instanceof ApiError ? problem.message : describeError(problem));
    }
  };
  return (
    <section>
      <h1 tabIndex={-1}>Custom rules</h1>
      <p>
        A rule set adds fields to an extraction API (or defines a new one) for pages whose URL matches its
        pattern.
      </p>
      <h2>Your rule sets</h2>
      <ErrorMessage message={error} />
      {ruleSets === undefined ? <Status>Loading…</Status> : null}
      {ruleSets?.length === 0 ? <p>No rule set yet.</p> : null}
      <ul class="rulesets">
        {(ruleSets ?? []).map((ruleSet) => (
          <li class="card" key={ruleSet.hash}>
            <h3>
              {ruleSet.api} <code>{ruleSet.urlPattern}</code>
            </h3>
            <p class="muted">
              {ruleSet.rules.length} rules · hash {ruleSet.hash}
            </p>
            <div class="actions">
              <button type="button" onClick={() => setEditing(draftOf(ruleSet))}>
                Edit {ruleSet.api} {ruleSet.urlPattern}
              </button>
              <button type="button" onClick={() => remove(ruleSet)}>
                Delete {ruleSet.api} {ruleSet.urlPattern}
              </button>
            </div>
          </li>
        ))}
      </ul>
      <RuleSetEditor
        key={editing ? `${editing.api}\n${editing.urlPattern}` : 'new'}
        token={props.token}
        initial={editing}
        onSaved={() => setVersion((n) => n + 1)}
        onNew={() => setEditing(undefined)}
      />
    </section>
  );
}

function draftOf(ruleSet: RuleSet): Draft {
  return {
    api: ruleSet.api,
    urlPattern: ruleSet.urlPattern,
    testUrl: ruleSet.testUrl ?? '',
    prefilters: (ruleSet.prefilters ?? []).join('\n'),
    rules: JSON.stringify(ruleSet.rules, null, 2),
  };
}
