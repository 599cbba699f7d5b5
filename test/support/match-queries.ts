/**
 * Matcher queries for tests: a Person query with no fields but those given (the matcher's
 * `MatchQuery` requires its lists; tests name only what they test).
 */
import type { MatchQuery } from '../../src/match/index.ts';

/** A Person query named "John Carter" unless `fields` says otherwise, with empty lists. */
export function personQuery(fields: Partial<MatchQuery> = {}): MatchQuery {
  return { type: 'Person', names: ['John Carter'], urls: [], emails: [], phones: [], ...fields };
}
