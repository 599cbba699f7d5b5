import { createHash } from 'node:crypto';

/**
 * An id for a record imported without one (a CSV export of a CRM rarely has ids): derived from
 * what identifies it — its type, its name and its first web address — so re-importing the same
 * file (or another listing the same company) states the same entity again instead of adding a
 * twin. `ORG-m-…` / `PER-m-…`, 16 hex digits of SHA-256. `undefined` when the record has no name
 * (nothing to derive an id from: the record is rejected for its missing id).
 */
export function mintEntityId(record: Record<string, unknown>): string | undefined {
  const name = typeof record.name === 'string' ? normalise(record.name) : '';
  if (name === '') return undefined;
  const type = record.type === 'Person' ? 'Person' : 'Organization';
  const key = [type, name, normalise(firstAddress(record))].join('\u0000');
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${type === 'Person' ? 'PER' : 'ORG'}-m-${digest}`;
}

function normalise(text: string): string {
  return text.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ');
}

/** The record's first web address (`homepageUri`, else the first of `allUris`), without scheme. */
function firstAddress(record: Record<string, unknown>): string {
  const uris = Array.isArray(record.allUris) ? record.allUris : [];
  const first = typeof record.homepageUri === 'string' ? record.homepageUri : uris[0];
  if (typeof first !== 'string') return '';
  return first
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/^www\./i, '')
    .replace(/\/+$/, '');
}
