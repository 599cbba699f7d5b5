import { createMatcher, type Matcher } from '../match/index.ts';
import { VocabularyShare, type VocabularyShareData } from '../threads/index.ts';
import { openStorage, type Storage, type StoreLocator } from '../storage/index.ts';
import { Enhancer } from './enhance-service.ts';

/**
 * What a thread that answers enhance queries works with: its own read-only connection to the
 * store `store` and an `Enhancer` over it (and its matcher), matching with the vocabularies
 * shared by the server's other threads when given (else its own).
 */
export function openThreadEnhancer(options: {
  readonly store: StoreLocator;
  readonly cacheMiB: number;
  readonly vocabularies?: VocabularyShareData;
}): { storage: Storage; enhancer: Enhancer; matcher: Matcher } {
  const storage = openStorage(options.store, { readOnly: true, cacheMiB: options.cacheMiB });
  const share = options.vocabularies ? new VocabularyShare(options.vocabularies) : undefined;
  const matcher = createMatcher(storage.entities, share ? { share } : {});
  const enhancer = new Enhancer({ entities: storage.entities, matcher });
  return { storage, enhancer, matcher };
}
