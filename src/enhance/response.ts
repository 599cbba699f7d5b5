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
  };
}

export interface EnhanceHit {
  score: number;
  esscore: number;
  entity: Record<string, unknown> | null;
  errors?: string[];
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
