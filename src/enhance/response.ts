/** The enhance response (docs/api.md#enhance-response), shared by enhance, combine and bulk. */

/** One candidate's debug record in `searchInfo` (docs/api.md#searchinfo). */
export interface SearchCandidate {
  mlScore: number;
  baseMlScore: number;
  debugInfo: {
    message: string;
    hasResult: boolean;
    features: Record<string, number | string | boolean>;
    contributions: Record<string, number>;
    /** Search evidence: the first page that stated the candidate, and when it was fetched. */
    url?: string;
    lastCrawlTime?: number;
    /** Search evidence: every page that stated the candidate. */
    pages?: string[];
  };
}

/** One URL's line of `refreshInfo` (docs/api.md#refresh-and-search). */
export interface RefreshDebugInfo {
  url: string;
  hasResult: boolean;
  /** Epoch ms of the URL's last fetch (0: never fetched). */
  lastCrawlTime: number;
  message: string;
}

/** `refreshDelta`: the entity's changes against the entity before the refresh. */
export interface RefreshDeltaInfo {
  added: Record<string, unknown>;
  changed: Record<string, { old: unknown; new: unknown }>;
  removed: string[];
}

export interface EnhanceHit {
  score: number;
  esscore: number;
  entity: Record<string, unknown> | null;
  errors?: string[];
  /** With `refresh=true`: per origin URL, what its fetch gave. */
  refreshInfo?: Record<string, RefreshDebugInfo>;
  refreshDelta?: RefreshDeltaInfo;
  entity_ctx?: Record<string, unknown>;
}

export interface EnhanceResponse {
  version: number;
  hits: number;
  kgversion: string;
  request_ctx: { query: Record<string, unknown> | string; query_ctx: Record<string, unknown> };
  data: EnhanceHit[];
  errors: string[];
  searchInfo: Record<string, SearchCandidate>;
}

/** Version of the response format (the enhance interface is 3.0.0). */
export const RESPONSE_VERSION = 3;

/**
 * What an answer tells the metrics: the candidates it lists in `searchInfo` and the best one's
 * score (`undefined` without candidates, as for an answer by id).
 */
export function matchSummary(response: EnhanceResponse): MatchSummary {
  let best: number | undefined;
  let candidates = 0;
  for (const candidate of Object.values(response.searchInfo)) {
    candidates++;
    if (best === undefined || candidate.mlScore > best) best = candidate.mlScore;
  }
  return { candidates, bestScore: best };
}

/** See `matchSummary`. */
export interface MatchSummary {
  readonly candidates: number;
  readonly bestScore: number | undefined;
}
