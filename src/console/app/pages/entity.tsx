/**
 * An entity's page, `/console/entity/<id>` (also the reconciliation service's view URL): its facts
 * with the origins that support them, the values that lost when sources disagreed, and the
 * entities it links to. Read with an `id` enhance query (`jsonmode=extended`,
 * `nonCanonicalFacts=true`); ids do not say their type, so Organization is asked first, then Person.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, describeError } from '../api.ts';
import { ErrorMessage, Status, formatValue } from '../components.tsx';
import { entityPath } from '../router.ts';

type Entity = Record<string, unknown> & { id: string; name?: string; type?: string };

interface NonCanonicalFact {
  readonly field: string;
  readonly value: unknown;
  readonly origins?: string[];
}

interface Loaded {
  readonly entity: Entity;
  readonly factOrigins: Record<string, string[]>;
}

interface IdAnswer {
  readonly data: { entity: Entity | null; entity_ctx?: { factOrigins?: Record<string, string[]> } }[];
  readonly errors?: string[];
}

async function loadEntity(token: string, id: string): Promise<Loaded> {
  const errors: string[] = [];
  for (const type of ['Organization', 'Person']) {
    const query = { type, id, jsonmode: 'extended', nonCanonicalFacts: true };
    const { body } = await call<IdAnswer>(token, '/kg/v3/enhance', { query });
    const hit = body.data[0];
    if (hit?.entity) return { entity: hit.entity, factOrigins: hit.entity_ctx?.factOrigins ?? {} };
    errors.push(...(body.errors ?? []));
  }
  throw new Error(errors.find((message) => message.startsWith('No entity')) ?? `No entity with id "${id}".`);
}

/** The entities this one names (an employer, a school…), with where they appear. */
export function linkedEntities(value: unknown, path = ''): { path: string; id: string; name?: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => linkedEntities(item, `${path}[${index}]`));
  if (!value || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own =
    path !== '' && typeof record.id === 'string'
      ? [{ path, id: record.id, name: typeof record.name === 'string' ? record.name : undefined }]
      : [];
  const nested = Object.entries(record).flatMap(([key, child]) =>
    key === 'nonCanonicalFacts' ? [] : linkedEntities(child, path ? `${path}.${key}` : key),
  );
  return [...own, ...nested];
}

/**
 * A value for people: a date of the graph (`{"str": "d1934-05"}`) as `1934-05`, a named thing by
 * its name, a phone or e-mail by its text, lists joined with `; `, other objects as `key: value`.
 */
function display(value: unknown): string {
  if (Array.isArray(value)) return value.map(display).join('; ');
  if (!value || typeof value !== 'object') return formatValue(value);
  const record = value as Record<string, unknown>;
  if (typeof record.str === 'string' && /^d\d/.test(record.str)) return record.str.slice(1);
  for (const key of ['name', 'string', 'contactString']) {
    if (
      typeof record[key] === 'string' &&
      Object.keys(record).every((k) => ['id', 'type', 'digits', key].includes(k))
    ) {
      return record[key] as string;
    }
  }
  return Object.entries(record)
    .filter(([, child]) => child !== null && child !== undefined)
    .map(([key, child]) => `${key}: ${display(child)}`)
    .join(', ');
}

export function EntityPage(props: { token: string; id: string }) {
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setLoaded(undefined);
    setError(undefined);
    loadEntity(props.token, props.id).then(setLoaded, (problem) => setError(describeError(problem)));
  }, [props.token, props.id]);
  // One heading element whatever the state, so the focus put on it by navigation stays there.
  return (
    <section class="entity">
      <h1 tabIndex={-1}>{loaded ? (loaded.entity.name ?? loaded.entity.id) : `Entity ${props.id}`}</h1>
      <ErrorMessage message={error} />
      {!loaded && !error ? <Status>Loading…</Status> : null}
      {loaded ? <EntityView {...loaded} /> : null}
    </section>
  );
}

function EntityView(props: Loaded) {
  const { entity, factOrigins } = props;
  const nonCanonical = (entity.nonCanonicalFacts as NonCanonicalFact[] | undefined) ?? [];
  const facts = Object.entries(entity).filter(
    ([field]) => !['id', 'type', 'nonCanonicalFacts'].includes(field),
  );
  const links = linkedEntities(entity);
  return (
    <>
      <p class="muted">
        {entity.type} · <code>{entity.id}</code>
      </p>
      <h2>Facts</h2>
      <div class="table-wrap">
        <table class="facts">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Value</th>
              <th scope="col">Origins</th>
            </tr>
          </thead>
          <tbody>
            {facts.map(([field, value]) => (
              <tr key={field}>
                <th scope="row">{field}</th>
                <td class="value">{display(value)}</td>
                <td>
                  <Origins origins={factOrigins[field] ?? []} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <NonCanonical facts={nonCanonical} />
      <h2>Linked entities</h2>
      {links.length === 0 ? (
        <p>This entity names no other entity of the graph.</p>
      ) : (
        <ul class="links">
          {links.map((link) => (
            <li key={link.path}>
              <a href={entityPath(link.id)}>{link.name ?? link.id}</a>{' '}
              <span class="muted">({link.path})</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function NonCanonical(props: { facts: NonCanonicalFact[] }) {
  return (
    <>
      <h2>Non-canonical facts</h2>
      {props.facts.length === 0 ? (
        <p>The sources agree: no value lost.</p>
      ) : (
        <div class="table-wrap">
          <table class="non-canonical">
            <caption>Values that lost when sources disagreed</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Value</th>
                <th scope="col">Origins</th>
              </tr>
            </thead>
            <tbody>
              {props.facts.map((fact, index) => (
                <tr key={`${fact.field}-${index}`}>
                  <th scope="row">{fact.field}</th>
                  <td class="value">{display(fact.value)}</td>
                  <td>
                    <Origins origins={fact.origins ?? []} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Origins(props: { origins: string[] }) {
  if (props.origins.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="origins">
      {props.origins.map((origin) => (
        <li key={origin}>
          {/^https?:\/\//.test(origin) ? (
            <a href={origin} rel="noreferrer noopener" target="_blank">
              {origin}
            </a>
          ) : (
            origin
          )}
        </li>
      ))}
    </ul>
  );
}
