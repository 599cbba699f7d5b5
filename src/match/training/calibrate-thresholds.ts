/**
 * Choosing the default thresholds: per entity type, the lowest score at which every labelled
 * query set of that type reaches its precision floor plus a safety margin. Recall is what a
 * lower threshold buys, so the lowest cut that keeps the precision promise favours recall
 * (docs/api.md#enhance-response) without breaking the floors our users rely on.
 */
import type { EntityType } from '../../kg/index.ts';
import { type EvaluationMetrics, evaluateOutcomes, type QueryOutcome } from '../evaluation.ts';

/** The precision Quarry promises at the default threshold, per entity type. */
export const PRECISION_FLOORS: Readonly<Record<EntityType, number>> = Object.freeze({
  Organization: 0.97,
  Person: 0.95,
});

/** Added to each floor: the held-back data users bring differs from the sets we calibrate on. */
export const DEFAULT_MARGIN = 0.02;

/** One labelled query set, run through the matcher. */
export interface CalibrationSet {
  readonly name: string;
  readonly type: EntityType;
  readonly outcomes: readonly QueryOutcome[];
}

export interface CalibrationResult {
  readonly thresholds: Readonly<Partial<Record<EntityType, number>>>;
  /** Metrics of each set at its type's chosen threshold. */
  readonly sets: readonly { name: string; type: EntityType; metrics: EvaluationMetrics }[];
  /** Types for which no threshold reached the floor on every set (the best effort was kept). */
  readonly unmet: readonly EntityType[];
}

/**
 * For each type present in `sets`: the lowest threshold in 0.01 steps at which every set of the
 * type has precision ≥ floor + margin. When none does, the threshold that maximises the lowest
 * precision among the sets (reported in `unmet`).
 */
export function calibrateThresholds(
  sets: readonly CalibrationSet[],
  options: { floors?: Readonly<Record<EntityType, number>>; margin?: number } = {},
): CalibrationResult {
  const floors = options.floors ?? PRECISION_FLOORS;
  const margin = options.margin ?? DEFAULT_MARGIN;
  const thresholds: Partial<Record<EntityType, number>> = {};
  const unmet: EntityType[] = [];
  for (const type of ['Organization', 'Person'] as const) {
    const ofType = sets.filter((s) => s.type === type);
    if (ofType.length === 0) continue;
    const wanted = floors[type] + margin;
    let chosen: number | undefined;
    let fallback = 0.5;
    let fallbackPrecision = -1;
    for (let i = 1; i < 100; i++) {
      const t = i / 100;
      const lowest = Math.min(...ofType.map((s) => evaluateOutcomes(s.outcomes, t).precision));
      if (lowest >= wanted) {
        chosen = t;
        break;
      }
      if (lowest > fallbackPrecision) {
        fallbackPrecision = lowest;
        fallback = t;
      }
    }
    if (chosen === undefined) unmet.push(type);
    thresholds[type] = chosen ?? fallback;
  }
  return {
    thresholds,
    sets: sets.map((s) => ({
      name: s.name,
      type: s.type,
      metrics: evaluateOutcomes(s.outcomes, thresholds[s.type]!),
    })),
    unmet,
  };
}
