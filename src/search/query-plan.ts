/**
 * Query planning: the web searches that should find the pages describing the entity an enhance
 * query is about (docs/api.md#refresh-and-search). Pure.
 *
 * From the most to the least specific: name with location, name with employer (a person),
 * name with the domain of an e-mail address or URL, the name alone, the e-mail domain or the
 * site, and the phone number. At most `MAX_QUERIES`, without repeats.
 */
import type { EnhanceQuery } from '../enhance/index.ts';
import { normalizeDomain, normalizeEmail } from '../kg/index.ts';

/** Searches made per enhance query at most. */
export const MAX_QUERIES = 4;

function siteOf(url: string): string | undefined {
  return normalizeDomain(url)?.registrable;
}

function emailDomainOf(email: string): string | undefined {
  const normalized = normalizeEmail(email);
  if (!normalized || normalized.freeMail) return undefined;
  return normalized.registrable;
}

function clean(text: string | undefined): string | undefined {
  const folded = text?.replace(/\s+/g, ' ').trim();
  return folded ? folded.slice(0, 200) : undefined;
}

/** The web searches for `query`, best first. */
export function planQueries(query: EnhanceQuery, max = MAX_QUERIES): string[] {
  const out: string[] = [];
  const add = (...parts: (string | undefined)[]) => {
    if (parts.some((part) => part === undefined)) return;
    const text = parts.join(' ');
    if (!out.includes(text)) out.push(text);
  };
  const name = clean(query.name[0]);
  const location = clean(query.location);
  const employer = clean(query.employer);
  const emailDomain = query.email.map(emailDomainOf).find((d) => d !== undefined);
  const site = query.url.map(siteOf).find((d) => d !== undefined);
  const phone = clean(query.phone);
  if (name) {
    if (location) add(name, location);
    if (query.type === 'Person' && employer) add(name, employer);
    if (emailDomain ?? site) add(name, emailDomain ?? site);
    add(name);
  }
  if (site) add(site);
  if (emailDomain) add(emailDomain);
  if (phone) add(`"${phone}"`);
  return out.slice(0, max);
}
