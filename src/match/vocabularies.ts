/**
 * The term vocabularies retrieval and features weigh tokens by, per graph version: built from
 * the source's term counts once (shared with the other matching threads through a
 * `TermTableShare`, which the threads layer provides) and rebuilt after a write.
 */
import type { EntityType } from '../kg/index.ts';
import type { CandidateSource, EntityCounts } from './candidate-source.ts';
import { KEY } from './profile.ts';
import { TermTable } from './term-table.ts';
import { Vocabulary } from './vocabulary.ts';

/**
 * Term tables shared between the threads that match against one store: the first to need the
 * table of `prefix` at `version` builds it, the others get that copy (threads/vocabulary-share.ts).
 */
export interface TermTableShare {
  table(prefix: string, version: string, build: () => TermTable): TermTable;
}

/** The vocabularies of one query type. */
export interface Vocabularies {
  /** Name tokens of the query's type. */
  readonly names: Vocabulary;
  /** Person place tokens (cities, addresses, postcodes). */
  readonly places: Vocabulary;
  /** Person e-mail words (local part and domain labels). */
  readonly emails: Vocabulary;
}

/** Vocabularies per key prefix, following the source's graph version. */
export class VocabularyCache {
  readonly #source: CandidateSource;
  readonly #share: TermTableShare | undefined;
  #version: string | undefined;
  #vocabularies = new Map<string, Vocabulary>();
  #counts: EntityCounts | undefined;

  constructor(source: CandidateSource, share?: TermTableShare) {
    this.#source = source;
    this.#share = share;
  }

  /** The vocabularies for `type` at the current graph version (rebuilt after writes). */
  vocabularies(type: EntityType): Vocabularies {
    const version = this.#source.version();
    if (version !== this.#version) {
      this.#version = version;
      this.#vocabularies = new Map();
      this.#counts = undefined;
    }
    const person = type === 'Person';
    return {
      names: this.#vocabulary(person ? KEY.personToken : KEY.orgToken, type),
      places: this.#vocabulary(KEY.personPlace, 'Person'),
      emails: this.#vocabulary(KEY.emailToken, 'Person'),
    };
  }

  #vocabulary(prefix: string, type: EntityType): Vocabulary {
    let vocabulary = this.#vocabularies.get(prefix);
    if (!vocabulary) {
      this.#counts ??= this.#source.counts();
      const counts = this.#counts;
      const build = () => TermTable.build(this.#source.termCounts(prefix));
      const table = this.#share ? this.#share.table(prefix, this.#version ?? '', build) : build();
      vocabulary = new Vocabulary(table, type === 'Person' ? counts.persons : counts.organizations);
      this.#vocabularies.set(prefix, vocabulary);
    }
    return vocabulary;
  }
}
