/** Entering, checking and forgetting the API token. */
import { useState } from 'preact/hooks';
import { ApiError, call, describeError } from './api.ts';
import { Checkbox, Field } from './components.tsx';
import { forgetToken, storeToken } from './token.ts';

interface Props {
  readonly token: string;
  readonly onChange: (token: string) => void;
}

/** The token is checked with a free call (the list of bulk jobs) before it is kept. */
async function checkToken(token: string): Promise<string | undefined> {
  try {
    await call(token, '/kg/v3/enhance/bulk/status');
    return undefined;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return `This token was refused: ${error.message}`;
    return describeError(error);
  }
}

export function TokenPanel(props: Props) {
  const [draft, setDraft] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (props.token) {
    return (
      <div class="token-panel signed-in">
        <span>Token …{props.token.slice(-4)}</span>
        <button
          type="button"
          onClick={() => {
            forgetToken();
            props.onChange('');
          }}
        >
          Forget token
        </button>
      </div>
    );
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    const token = draft.trim();
    if (!token) return setError('Enter a token.');
    setBusy(true);
    const problem = await checkToken(token);
    setBusy(false);
    setError(problem);
    if (problem) return;
    storeToken(token, remember);
    setDraft('');
    props.onChange(token);
  };
  return (
    <form class="token-panel" onSubmit={submit} aria-label="Sign in with a token">
      <Field
        label="API token"
        type="password"
        name="token"
        autocomplete="off"
        value={draft}
        onInput={setDraft}
        error={error}
      />
      <Checkbox label="Remember on this browser" checked={remember} onChange={setRemember} />
      <button type="submit" disabled={busy}>
        {busy ? 'Checking…' : 'Use token'}
      </button>
    </form>
  );
}
