/**
 * User-supplied regular expressions with a guaranteed bound: every pattern a request carries
 * runs on a linear-time engine (RE2 semantics), or is refused with a message fit for a 400.
 * `docs/user-patterns.md` explains the choice and its limits.
 */
export { checkJsonPathPatterns, createSafeJsonPathEnvironment } from './jsonpath-functions.ts';
export type { RedosCase } from './redos-corpus.ts';
export { REDOS_CORPUS } from './redos-corpus.ts';
export type { PatternDialect, PatternOptions, UserPattern } from './user-pattern.ts';
export { compileUserPattern, PATTERN_LIMITS, UserPatternError } from './user-pattern.ts';
