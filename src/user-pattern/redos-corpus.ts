/**
 * Regular expressions that make a backtracking engine take exponential (or high polynomial)
 * time, each with an input that triggers it. With JavaScript's `RegExp` most of these take
 * seconds to hours; compiled by `compileUserPattern` each runs in well under a millisecond per
 * kilobyte. Shared by the pattern tests, the extraction benchmark and the HTTP fuzz suite (which
 * sends them as `urlPattern`, `replace` filters, `:matches()` selectors and JSONPath filters).
 */

/** One hostile pattern and an input that makes backtracking blow up. */
export interface RedosCase {
  readonly pattern: string;
  readonly input: string;
  /** Where it comes from or what makes it slow. */
  readonly note: string;
}

const repeat = (text: string, times: number) => text.repeat(times);

/** The corpus; inputs are at most a few kilobytes (a long URL, a page text node). */
export const REDOS_CORPUS: readonly RedosCase[] = Object.freeze([
  {
    pattern: '(a|a)*$',
    input: `${repeat('a', 27)}!`,
    note: 'issue 28: a 27-character URL froze the server 15.6 s',
  },
  {
    pattern: '(.*[a-z]){10}Q',
    input: repeat('abcdefghij', 40),
    note: 'issue 28: JSONPath search() that wedged enhance threads',
  },
  { pattern: '(a+)+$', input: `${repeat('a', 40)}!`, note: 'nested quantifier (star height 2)' },
  { pattern: '([a-zA-Z]+)*$', input: `${repeat('aB', 30)}1`, note: 'nested quantifier over a class' },
  { pattern: '(a|aa)+$', input: `${repeat('a', 60)}!`, note: 'overlapping alternatives under +' },
  {
    pattern: '^(\\w+\\s?)*$',
    input: `${repeat('word ', 40)}!`,
    note: 'optional separator between repeated words',
  },
  { pattern: '(x+x+)+y', input: repeat('x', 50), note: 'classic exponential case' },
  { pattern: '^(([a-z])+.)+[A-Z]([a-z])+$', input: `${repeat('aaaa', 20)}!`, note: 'OWASP ReDoS example' },
  {
    pattern:
      '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
    input: `${repeat('a', 50)}!`,
    note: 'OWASP: e-mail validation',
  },
  { pattern: '(\\d+)*\\D', input: repeat('1', 60), note: 'digits under a repeated group, no non-digit' },
  { pattern: '^(a?){25}(a){25}$', input: repeat('a', 25), note: 'optional items then required ones' },
  { pattern: '(.*a){20}', input: repeat('a', 60), note: 'counted repetition of a greedy wildcard' },
  { pattern: '(\\w+)+\\.com', input: `${repeat('a', 50)}.co`, note: 'URL-ish nested quantifier' },
  { pattern: 'a*a*a*a*a*a*a*b', input: repeat('a', 3000), note: 'polynomial: n^7 backtracking steps' },
  { pattern: '\\s*#?\\s*$', input: `${repeat(' ', 20_000)}x`, note: 'polynomial: trailing whitespace trim' },
  { pattern: '(?i)(a|b|ab)*c', input: repeat('ab', 40), note: 'alternatives sharing a prefix' },
  { pattern: '^(([^/]+/)*)+$', input: `${repeat('seg/', 30)}\u0000`, note: 'path-like nested groups' },
  {
    pattern: '(?:[a-z]+-?)+\\.html',
    input: `/${repeat('ab-', 40)}`,
    note: 'slug in a urlPattern, never matched',
  },
]);
