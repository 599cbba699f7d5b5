/**
 * What enhance needs from refresh and search (docs/api.md#refresh-and-search), which fetch pages
 * and so run on the main thread around the graph's answer: the composition root plugs the
 * implementation in (`search/`'s `WebEnhancer`).
 */
import type { AnswerKind } from './enhance-threads.ts';
import type { EnhanceOptions, ParsedEnhanceRequest } from './query.ts';
import type { EnhanceResponse } from './response.ts';

/** Whose wait it is: a person's request goes before bulk jobs at a busy host, and has a deadline. */
export interface WebContext {
  readonly priority: 'interactive' | 'bulk';
  /**
   * Scores after refresh: computed here (`inline`, the default), or left to the caller
   * (`deferred`: bulk jobs answer the refreshed records again on their worker threads and call
   * `rescored`, keeping the main thread free).
   */
  readonly rescore?: 'inline' | 'deferred';
}

/** Pages read for an answer: fetched (2xx), failed, not fetched again (fresh). */
export interface WebPageCounts {
  readonly fetched: number;
  readonly failed: number;
  readonly fresh: number;
}

/** A completed answer and how many of its matched entities web work was done for. */
export interface WebAnswer {
  readonly response: EnhanceResponse;
  /** The pages refresh and search read for it. */
  readonly pages: WebPageCounts;
  /** Deferred rescoring: the refresh changed a hit, and the caller should score it again. */
  readonly rescore: boolean;
  /**
   * Returned matched entities for which at least one page was fetched (their refresh, or the
   * search that found or confirmed them): charged the refresh price (docs/api.md#credits).
   */
  readonly premium: number;
}

/** Refresh and search around the graph's answer. */
export interface WebEvidence {
  /** Whether `options` ask for web work (refresh, or a search mode other than `OFF`). */
  wanted(options: EnhanceOptions): boolean;
  /**
   * Completes `graph`, the graph's answer to `request`, with search and refresh: the hits found
   * or rebuilt, `refreshInfo`, `refreshDelta`, `searchInfo` scores after the evidence, notes in
   * `errors`. Never rejects for a page or a provider that fails: that is a note.
   */
  complete(
    kind: AnswerKind,
    request: ParsedEnhanceRequest,
    graph: EnhanceResponse,
    context: WebContext,
  ): Promise<WebAnswer>;
  /**
   * Deferred rescoring: sets the scores of `response`'s hits to those of `fresh`, the graph's
   * answer to the same query after the refresh (its `searchInfo`), keeping `baseMlScore`.
   */
  rescored(response: EnhanceResponse, fresh: EnhanceResponse): void;
}

/** Whether `options` ask for web work. */
export function wantsWeb(options: EnhanceOptions): boolean {
  return options.refresh || options.search !== 'OFF';
}
