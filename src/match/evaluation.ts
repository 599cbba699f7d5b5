/**
 * Evaluation of matcher results against labelled queries, exactly as the bench defines it:
 * precision, recall, F1 at a threshold, top-1 accuracy over matchable queries, and expected
 * calibration error over 10 equal-width bins of the top candidate's score.
 */
import { type EntityType, isEntityType } from '../kg/index.ts';
import type { MatchQuery } from './query-analysis.ts';

/** One query's outcome: the expected id (`null`: not in the graph) and the top candidate. */
export interface QueryOutcome {
  readonly expected: string | null;
  readonly top: string | null;
  readonly score: number | null;
  /** This query's own threshold (e.g. its entity type's default), overriding the common one. */
  readonly threshold?: number;
  /**
   * The leading candidates (at most 5), kept for queries about namesakes. Such a query has no
   * right top candidate to check a score against (any namesake may be the one meant): it is
   * judged by its namesakes' scores (`NAMESAKE_BOUNDS`) and left out of the ECE.
   */
  readonly candidates?: readonly { readonly id: string; readonly score: number }[];
}

export interface EvaluationMetrics {
  readonly queries: number;
  readonly matchable: number;
  readonly threshold: number;
  readonly truePositives: number;
  readonly falsePositives: number;
  readonly falseNegatives: number;
  readonly trueNegatives: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
  /** F2 (recall weighted twice as much as precision). */
  readonly f2: number;
  /** Share of matchable queries whose top candidate (ignoring the threshold) is the expected one. */
  readonly top1: number;
  /**
   * Expected calibration error, 10 equal-width bins over [0, 1], namesake queries left out
   * (their label names no single right entity; see `QueryOutcome.candidates`).
   */
  readonly ece: number;
  /**
   * The ECE with namesake queries counted as their label says (no entity expected: a top
   * namesake is wrong at whatever score). Equal to `ece` on sets without namesakes.
   */
  readonly eceNamesakesCounted: number;
}

/** Scores outcomes at `threshold` (a hit is a top candidate with score ≥ threshold). */
export function evaluateOutcomes(outcomes: readonly QueryOutcome[], threshold: number): EvaluationMetrics {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  let matchable = 0;
  let top1 = 0;
  const calibration = new CalibrationBins();
  const counted = new CalibrationBins();
  for (const o of outcomes) {
    const hit = o.top !== null && o.score !== null && o.score >= (o.threshold ?? threshold);
    if (o.expected !== null) {
      matchable++;
      if (o.top === o.expected) top1++;
      if (hit && o.top === o.expected) tp++;
      else if (hit) {
        fp++;
        fn++;
      } else fn++;
    } else if (hit) fp++;
    else tn++;
    if (o.top !== null && typeof o.score === 'number' && Number.isFinite(o.score)) {
      if (o.candidates === undefined) calibration.add(o.score, o.top === o.expected);
      counted.add(o.score, o.top === o.expected);
    }
  }
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const f = (beta: number) =>
    precision + recall > 0
      ? ((1 + beta * beta) * precision * recall) / (beta * beta * precision + recall)
      : 0;
  return {
    queries: outcomes.length,
    matchable,
    threshold,
    truePositives: tp,
    falsePositives: fp,
    falseNegatives: fn,
    trueNegatives: tn,
    precision,
    recall,
    f1: f(1),
    f2: f(2),
    top1: matchable > 0 ? top1 / matchable : 0,
    ece: calibration.error(),
    eceNamesakesCounted: counted.error(),
  };
}

/** Top scores in 10 equal-width bins, for the expected calibration error. */
export class CalibrationBins {
  readonly #bins = Array.from({ length: 10 }, () => ({ n: 0, correct: 0, confidence: 0 }));
  #count = 0;

  add(score: number, right: boolean): void {
    const bin = this.#bins[Math.min(9, Math.max(0, Math.floor(score * 10)))];
    bin.n++;
    bin.confidence += score;
    if (right) bin.correct++;
    this.#count++;
  }

  /** Σ over bins of (share of scores) × |share right − mean score|. */
  error(): number {
    let ece = 0;
    for (const bin of this.#bins) {
      if (bin.n === 0) continue;
      ece += (bin.n / this.#count) * Math.abs(bin.correct / bin.n - bin.confidence / bin.n);
    }
    return ece;
  }
}

/** The threshold in [0, 1] (a multiple of 0.01) that maximises F-beta on `outcomes`. */
export function bestThreshold(outcomes: readonly QueryOutcome[], beta = 2): number {
  let best = 0.5;
  let bestF = -1;
  for (let i = 1; i < 100; i++) {
    const threshold = i / 100;
    const m = evaluateOutcomes(outcomes, threshold);
    const f =
      m.precision + m.recall > 0
        ? ((1 + beta * beta) * m.precision * m.recall) / (beta * beta * m.precision + m.recall)
        : 0;
    if (f > bestF + 1e-12) {
      bestF = f;
      best = threshold;
    }
  }
  return best;
}

/** Candidates kept per namesake query: the realistic set's check reads `size=5`. */
export const NAMESAKE_CANDIDATES = 5;

/**
 * Runs every labelled query through `matcher` and keeps its top candidate (the leading five for
 * a query about namesakes, whose check reads all their scores).
 */
export function runLabelledQueries(
  matcher: { match(query: MatchQuery, options: { limit: number }): readonly { id: string; score: number }[] },
  labelled: readonly LabelledQuery[],
  onProgress?: (done: number) => void,
): QueryOutcome[] {
  const outcomes: QueryOutcome[] = [];
  for (let i = 0; i < labelled.length; i++) {
    const { query, expected, namesakes } = labelled[i];
    const found = matcher.match(query, { limit: namesakes ? NAMESAKE_CANDIDATES : 1 });
    const top = found[0];
    outcomes.push({
      expected,
      top: top?.id ?? null,
      score: top?.score ?? null,
      ...(namesakes ? { candidates: found.map((c) => ({ id: c.id, score: c.score })) } : {}),
    });
    if (onProgress && (i + 1) % 1000 === 0) onProgress(i + 1);
  }
  return outcomes;
}

/** The realistic set's bounds for namesakes: their scores sum to at most 1.05, none above 0.75. */
export const NAMESAKE_BOUNDS = Object.freeze({ sum: 1.05, top: 0.75 });

/** How one kind of query (`meta.kinds`) fares. */
export interface KindReport {
  readonly kind: string;
  readonly queries: number;
  /**
   * Queries answered right, as the realistic set defines it: the expected entity is the top
   * hit; no hit when none is expected; for namesakes, their scores within the bounds.
   */
  readonly right: number;
  /** The bench metrics of the kind's queries at their thresholds (not for namesake kinds). */
  readonly metrics?: EvaluationMetrics;
  /** Namesake kinds: the largest sum of the namesakes' scores and the largest single score. */
  readonly namesakes?: { readonly maxSum: number; readonly maxTop: number; readonly meanSum: number };
}

/** Whether `outcome` of `query` is right (see `KindReport.right`); `threshold` decides hits. */
export function isRight(query: LabelledQuery, outcome: QueryOutcome, threshold: number): boolean {
  if (query.namesakes) {
    const { sum, top } = namesakeScores(query.namesakes, outcome);
    return sum <= NAMESAKE_BOUNDS.sum && top <= NAMESAKE_BOUNDS.top;
  }
  const hit = outcome.top !== null && outcome.score !== null && outcome.score >= threshold;
  return query.expected === null ? !hit : hit && outcome.top === query.expected;
}

function namesakeScores(namesakes: readonly string[], outcome: QueryOutcome): { sum: number; top: number } {
  let sum = 0;
  let top = 0;
  for (const c of outcome.candidates ?? []) {
    if (!namesakes.includes(c.id)) continue;
    sum += c.score;
    top = Math.max(top, c.score);
  }
  return { sum, top };
}

/**
 * Figures per kind of query (`meta.kinds`; a query of several kinds counts in each), in the
 * order kinds first appear. `thresholdOf` gives each query's threshold.
 */
export function evaluateKinds(
  labelled: readonly LabelledQuery[],
  outcomes: readonly QueryOutcome[],
  thresholdOf: (query: LabelledQuery) => number,
): KindReport[] {
  const byKind = new Map<string, number[]>();
  labelled.forEach((q, i) => {
    for (const kind of q.kinds ?? []) {
      const list = byKind.get(kind);
      if (list) list.push(i);
      else byKind.set(kind, [i]);
    }
  });
  return [...byKind].map(([kind, indexes]) => {
    const right = indexes.filter((i) => isRight(labelled[i], outcomes[i], thresholdOf(labelled[i]))).length;
    const named = indexes.filter((i) => labelled[i].namesakes);
    if (named.length > 0) {
      const scores = named.map((i) => namesakeScores(labelled[i].namesakes ?? [], outcomes[i]));
      return {
        kind,
        queries: indexes.length,
        right,
        namesakes: {
          maxSum: Math.max(...scores.map((s) => s.sum)),
          maxTop: Math.max(...scores.map((s) => s.top)),
          meanSum: scores.reduce((a, s) => a + s.sum, 0) / scores.length,
        },
      };
    }
    const own = indexes.map((i) => ({ ...outcomes[i], threshold: thresholdOf(labelled[i]) }));
    return { kind, queries: indexes.length, right, metrics: evaluateOutcomes(own, 0) };
  });
}

/** A labelled query as read from a queries file. */
export interface LabelledQuery {
  readonly query: MatchQuery;
  readonly expected: string | null;
  /** Its kinds of variation (`meta.kinds`; empty when the file has none). */
  readonly kinds?: readonly string[];
  /**
   * Ids of entities that share the query's name exactly (the realistic set's namesake queries):
   * nothing tells them apart, so their scores must split (see `NAMESAKE_BOUNDS`).
   */
  readonly namesakes?: readonly string[];
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw new TypeError(`"${field}" must be a string or an array of strings`);
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new TypeError(`"${field}" must be a string`);
  return value;
}

/**
 * Reads one line of a labelled queries file (`{"query": {...}, "expected": id|null}`, bench
 * format). Throws a TypeError naming the offending field.
 */
export function parseLabelledQuery(line: string): LabelledQuery {
  const parsed = JSON.parse(line) as {
    query?: Record<string, unknown>;
    expected?: unknown;
    meta?: { kinds?: unknown };
    namesakes?: unknown;
  };
  const q = parsed.query;
  if (!q || typeof q !== 'object') throw new TypeError('"query" must be an object');
  const type: unknown = q.type;
  if (!isEntityType(type)) throw new TypeError('"query.type" must be Organization or Person');
  if (parsed.expected !== null && typeof parsed.expected !== 'string') {
    throw new TypeError('"expected" must be an entity id or null');
  }
  const location = optionalString(q.location, 'query.location');
  const employer = optionalString(q.employer, 'query.employer');
  const title = optionalString(q.title, 'query.title');
  const school = optionalString(q.school, 'query.school');
  const description = optionalString(q.description, 'query.description');
  const ip = optionalString(q.ip, 'query.ip');
  const query: MatchQuery = {
    type: type as EntityType,
    names: stringList(q.name, 'query.name'),
    urls: stringList(q.url, 'query.url'),
    emails: stringList(q.email, 'query.email'),
    phones: stringList(q.phone, 'query.phone'),
    ...(location !== undefined ? { location } : {}),
    ...(employer !== undefined ? { employer } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(school !== undefined ? { school } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(ip !== undefined ? { ip } : {}),
  };
  const kinds = parsed.meta?.kinds === undefined ? [] : stringList(parsed.meta.kinds, 'meta.kinds');
  const namesakes = parsed.namesakes === undefined ? undefined : stringList(parsed.namesakes, 'namesakes');
  return { query, expected: parsed.expected, kinds, ...(namesakes ? { namesakes } : {}) };
}
