/**
 * The service manifest (`GET /reconcile`, docs/reconcile.md#manifest): what OpenRefine reads
 * when a person adds the service. Its URLs are absolute, built on the address the client used,
 * and those of services that need the token carry the token the manifest was asked with
 * (OpenRefine sends no headers: docs/reconcile.md#authentication).
 */
import { ENTITY_TYPES } from '../kg/index.ts';
import { PREVIEW_SIZE } from './preview.ts';

/** The identifier space: the service's entity pages, which its ids complete. */
export function identifierSpaceOf(origin: string): string {
  return `${origin}/console/entity/`;
}

/** The schema space: the service's entity model as its API documents it. */
export function schemaSpaceOf(origin: string): string {
  return `${origin}/openapi.json`;
}

/** The types, as the protocol writes them. */
export const RECONCILE_TYPES = Object.freeze(
  ENTITY_TYPES.map((type) => Object.freeze({ id: type, name: type })),
);

/** Where the manifest's URLs point. */
export interface ManifestLinks {
  /** Scheme, host and port the client used, e.g. `http://127.0.0.1:8080`. */
  readonly origin: string;
  /** The token the manifest was asked with, passed on in the URLs that need one. */
  readonly token?: string;
}

/** `path` with the token of `links` added to its query, when there is one. */
export function withToken(path: string, links: ManifestLinks): string {
  if (links.token === undefined) return path;
  return `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(links.token)}`;
}

/** The manifest (0.2 `manifest.json`). */
export function manifestOf(links: ManifestLinks): Record<string, unknown> {
  const { origin } = links;
  return {
    versions: ['0.2'],
    name: 'Quarry',
    identifierSpace: identifierSpaceOf(origin),
    schemaSpace: schemaSpaceOf(origin),
    documentation: `${origin}/docs`,
    defaultTypes: RECONCILE_TYPES,
    // The console's entity page (it asks for the token itself).
    view: { url: `${origin}/console/entity/{{id}}` },
    preview: { url: origin + withToken('/reconcile/preview?id={{id}}', links), ...PREVIEW_SIZE },
    suggest: {
      entity: {
        service_url: origin,
        service_path: withToken('/reconcile/suggest/entity', links),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the suggest widget's own placeholder.
        flyout_service_path: withToken('/reconcile/flyout/entity?id=${id}', links),
      },
      type: { service_url: origin, service_path: '/reconcile/suggest/type' },
      property: { service_url: origin, service_path: '/reconcile/suggest/property' },
    },
    // OpenRefine appends `?type=` to this URL as it is: it must carry no query of its own.
    extend: { propose_properties: { service_url: origin, service_path: '/reconcile/properties' } },
  };
}
