/**
 * The matching engine (pure): what to index for an entity, and how to find and score the
 * entities that a partial query describes.
 *
 * PLACEHOLDER IMPLEMENTATION: exact host/e-mail keys and lowercase name tokens, with a crude
 * score. It fixes the interface the rest of Quarry uses; the real engine (normalisers,
 * weighted retrieval, typo tolerance, calibrated scoring, explanations) replaces the internals.
 */
import type { Entity, EntityType } from '../kg/index.ts';
import type { EntityStore } from '../storage/index.ts';

/** A query as the matcher sees it: already validated; arrays may be empty, never undefined. */
export interface MatchQuery {
  readonly type: EntityType;
  readonly names: readonly string[];
  readonly urls: readonly string[];
  readonly emails: readonly string[];
  readonly phones: readonly string[];
  readonly location?: string;
  readonly employer?: string;
  readonly title?: string;
  readonly school?: string;
  readonly description?: string;
  readonly ip?: string;
}

/** Why a candidate scored what it did: per-feature values and their contributions. */
export interface Explanation {
  /** Compared feature values, e.g. `{ nameSimilarity: 0.93, domainMatch: 1 }`. */
  readonly features: Readonly<Record<string, number | string | boolean>>;
  /** Contribution of each feature to the score's log-odds. */
  readonly contributions: Readonly<Record<string, number>>;
  /** One line a human can read: what matched and what did not. */
  readonly summary: string;
}

export interface ScoredCandidate {
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  /** Calibrated probability in [0, 1] that this entity is the one the query describes. */
  readonly score: number;
  /** Raw candidate-retrieval score (unbounded). */
  readonly esscore: number;
  readonly explanation: Explanation;
}

export interface MatchOptions {
  /** Most candidates to return (after scoring), default 10. */
  readonly limit?: number;
}

export interface Matcher {
  /** Candidates sorted by `score` descending, at most `limit`; empty when nothing is plausible. */
  match(query: MatchQuery, options?: MatchOptions): ScoredCandidate[];
  /** The default `threshold` for a hit (documented; favours recall). */
  readonly defaultThreshold: number;
}

/** The store methods the matcher reads. */
export type CandidateSource = Pick<EntityStore, 'keyCounts' | 'refsForKey' | 'profiles'>;

/** What the store keeps for an entity so the matcher can find and score it. */
export interface EntityIndex {
  readonly profile: unknown;
  readonly keys: string[];
}

function hostOf(url: string): string | undefined {
  const trimmed = url.trim().toLowerCase();
  if (trimmed === '') return undefined;
  try {
    const parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//.test(trimmed) ? trimmed : `http://${trimmed}`);
    return parsed.hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

function tokens(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Computes the retrieval keys and the match profile of an entity (called at import). */
export function indexEntity(entity: Entity): EntityIndex {
  const names = [entity.name, ...(entity.allNames ?? [])].filter((n): n is string => typeof n === 'string');
  const hosts = [entity.homepageUri, ...(entity.allUris ?? [])]
    .filter((u): u is string => typeof u === 'string')
    .map(hostOf)
    .filter((h): h is string => h !== undefined);
  const emails = (entity.emailAddresses ?? []).map((e) => e.contactString.toLowerCase());
  const keys = new Set<string>();
  for (const host of hosts) keys.add(`d:${host}`);
  for (const email of emails) keys.add(`e:${email}`);
  for (const name of names) for (const token of tokens(name)) keys.add(`t:${token}`);
  return { profile: { names: names.map((n) => tokens(n).join(' ')), hosts, emails }, keys: [...keys] };
}

interface PlaceholderProfile {
  names: string[];
  hosts: string[];
  emails: string[];
}

/** Creates a matcher reading candidates from `source`. */
export function createMatcher(source: CandidateSource): Matcher {
  return {
    defaultThreshold: 0.5,
    match(query, options = {}) {
      const limit = options.limit ?? 10;
      const keys = [
        ...query.urls
          .map(hostOf)
          .filter((h): h is string => h !== undefined)
          .map((h) => `d:${h}`),
        ...query.emails.map((e) => `e:${e.trim().toLowerCase()}`),
        ...query.names.flatMap(tokens).map((t) => `t:${t}`),
      ];
      const refs = new Set<number>();
      for (const key of keys) for (const ref of source.refsForKey(key, 200)) refs.add(ref);
      const queryTokens = new Set(query.names.flatMap(tokens));
      const queryHosts = new Set(query.urls.map(hostOf));
      const scored: ScoredCandidate[] = [];
      for (const candidate of source.profiles([...refs])) {
        if (candidate.type !== query.type) continue;
        const profile = candidate.profile as PlaceholderProfile;
        const domain = profile.hosts.some((h) => queryHosts.has(h)) ? 1 : 0;
        let name = 0;
        for (const n of profile.names) {
          const nameTokens = new Set(n.split(' '));
          const common = [...queryTokens].filter((t) => nameTokens.has(t)).length;
          name = Math.max(name, common / Math.max(nameTokens.size, queryTokens.size, 1));
        }
        const queryEmails = query.emails.map((e) => e.trim().toLowerCase());
        const email = profile.emails.some((e) => queryEmails.includes(e)) ? 1 : 0;
        const score = Math.min(1, 0.7 * domain + 0.9 * name + 0.9 * email);
        scored.push({
          ref: candidate.ref,
          id: candidate.id,
          type: candidate.type,
          score,
          esscore: domain * 10 + name * 5,
          explanation: {
            features: { domain, name },
            contributions: { domain, name },
            summary: `domain ${domain}, name ${name.toFixed(2)}`,
          },
        });
      }
      return scored.sort((a, b) => b.score - a.score).slice(0, limit);
    },
  };
}
