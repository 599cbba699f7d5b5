/** The console's frame: skip link, navigation, the token, and the page of the current path. */
import { useState } from 'preact/hooks';
import { TokenPanel } from './token-panel.tsx';
import { BASE, usePath } from './router.ts';
import { storedToken } from './token.ts';
import { EnhancePage } from './pages/enhance.tsx';
import { EntityPage } from './pages/entity.tsx';
import { BulkPage } from './pages/bulk.tsx';
import { CustomPage } from './pages/custom.tsx';
import { ExtractPage } from './pages/extract.tsx';

const SECTIONS = [
  ['enhance', 'Enhance'],
  ['bulk', 'Bulk jobs'],
  ['custom', 'Custom rules'],
  ['extract', 'Bulk extract'],
] as const;

function Page(props: { path: string; token: string }) {
  const rest = props.path.slice(BASE.length).replace(/^\/+/, '');
  const [section, ...more] = rest.split('/');
  switch (section) {
    case '':
    case 'enhance':
      return <EnhancePage token={props.token} />;
    case 'entity':
      return <EntityPage token={props.token} id={decodeURIComponent(more.join('/'))} />;
    case 'bulk':
      return <BulkPage token={props.token} />;
    case 'custom':
      return <CustomPage token={props.token} />;
    case 'extract':
      return <ExtractPage token={props.token} />;
    default:
      return (
        <section>
          <h1 tabIndex={-1}>Not found</h1>
          <p>
            There is no console page at <code>{props.path}</code>.{' '}
            <a href={`${BASE}/enhance`}>Go to Enhance</a>.
          </p>
        </section>
      );
  }
}

export function App() {
  const path = usePath();
  const [token, setToken] = useState(storedToken());
  const current = path.slice(BASE.length).replace(/^\/+/, '').split('/')[0] || 'enhance';
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={`${BASE}/enhance`}>
          Quarry console
        </a>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map(([key, label]) => (
              <li key={key}>
                <a href={`${BASE}/${key}`} aria-current={current === key ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <TokenPanel token={token} onChange={setToken} />
      </header>
      <main id="main">
        {token ? (
          <Page path={path} token={token} key={token} />
        ) : (
          <section>
            <h1 tabIndex={-1}>Enter your token</h1>
            <p>The console calls Quarry's API with your API token. Enter it above to start.</p>
          </section>
        )}
      </main>
    </>
  );
}
