/**
 * Regular expressions that users supply (Custom API `urlPattern`, `replace` filters,
 * `:matches()` and `[attr~=regex]` selectors, JSONPath `match()` / `search()`), compiled for a
 * linear-time engine so that no pattern and no input can make a match take exponential time.
 *
 * The engine is `re2js`, a pure JavaScript port of RE2/J: RE2 semantics (a lazy DFA with a Pike
 * VM fallback, no backtracking), Java-flavoured syntax — which is what Custom API rules are
 * written in (jsoup takes Java regexes). Matching time is O(program size × input length), and
 * both are capped here: patterns at `PATTERN_LIMITS.maxLength` characters and
 * `PATTERN_LIMITS.maxProgramSize` instructions (`a{1000}{1000}` is refused before it is built).
 * Why not the native `re2` binding or a WebAssembly build: see `docs/user-patterns.md`.
 *
 * What RE2 cannot express is refused with a `UserPatternError` that names the construct:
 * lookahead (`(?=…)`, `(?!…)`), backreferences (`\1`, `\k<name>`), possessive quantifiers and
 * atomic groups. Captureless lookbehind (`(?<=…)`, `(?<!…)`) is supported (linear-time too).
 */
import { RE2JS } from 're2js';

/** Bounds on a user pattern; longer or larger ones are refused when compiled. */
export const PATTERN_LIMITS = Object.freeze({
  /** Characters of pattern text. */
  maxLength: 2000,
  /**
   * Instructions of the compiled program. Matching costs at most this many steps per input
   * character; 5,000 covers `[a-z]{1000}` four times over and keeps the worst case of a
   * 10 KB input near 50 M steps (measured: under 0.5 s in re2js's Pike VM).
   */
  maxProgramSize: 5000,
});

/** A pattern that cannot be compiled or is not supported; `message` says why, for a 400. */
export class UserPatternError extends Error {
  readonly pattern: string;
  constructor(pattern: string, message: string) {
    super(message);
    this.name = 'UserPatternError';
    this.pattern = pattern;
  }
}

/** Syntax dialects of user patterns. */
export type PatternDialect =
  /** Java / jsoup (Custom API rules): leading inline flags, `\A`, `\Z`, `\z`, `\uXXXX`. */
  | 'java'
  /** I-Regexp, RFC 9485 (JSONPath `match()` / `search()`): `.` matches anything but CR and LF. */
  | 'iregexp';

/** How to compile a pattern. */
export interface PatternOptions {
  readonly dialect?: PatternDialect;
  /** Case-insensitive matching (as the `i` flag). */
  readonly ignoreCase?: boolean;
}

/** A compiled user pattern. Stateless: safe to share and to call from anywhere. */
export interface UserPattern {
  /** The pattern as written. */
  readonly source: string;
  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** Whether the pattern matches the whole of `text`. */
  matchesWhole(text: string): boolean;
  /**
   * `text` with every match replaced by `replacement`, in which `$1`…`$99`, `$<name>`, `$&`
   * and `$$` mean what they mean in JavaScript's `String.prototype.replace`.
   */
  replaceAll(text: string, replacement: string): string;
}

/** Java inline flags and the RE2JS flag each maps to (`u`, Unicode case folding, is implied). */
const INLINE_FLAGS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  s: RE2JS.DOTALL,
  m: RE2JS.MULTILINE,
  u: 0,
};

/** RE2 syntax errors that mean "a construct RE2 lacks", and the construct's name. */
const UNSUPPORTED: readonly [RegExp, string][] = [
  [/unsupported Perl syntax: `\(\?[=!]/, 'lookahead ("(?=…)" or "(?!…)")'],
  [/unsupported Perl syntax: `\(\?>/, 'an atomic group ("(?>…)")'],
  [/invalid escape sequence: `\\([1-9]|k)/, 'a backreference ("\\1" or "\\k<name>")'],
  [/invalid nested repetition operator: `[*+?]\+/, 'a possessive quantifier (like "a++")'],
];

/** Rewrites Java/JavaScript escapes RE2 spells differently; returns the RE2 source. */
function translateJava(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\' && i + 1 < source.length) {
      const next = source[i + 1];
      const hex = /^[0-9a-fA-F]{4}/.exec(source.slice(i + 2, i + 6));
      if (next === 'u' && hex) {
        out += `\\x{${hex[0]}}`;
        i += 5;
      } else if (next === 'Z' && !inClass) {
        // Java's \Z: end of input (before a final line terminator); RE2's `$` without (?m).
        out += '$';
        i++;
      } else if (next === '/') {
        out += '/';
        i++;
      } else {
        out += c + next;
        i++;
      }
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

/** I-Regexp's `.` (any character but CR and LF) in RE2 syntax, outside character classes. */
function translateIRegexp(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\' && i + 1 < source.length) {
      out += c + source[i + 1];
      i++;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === ']') {
      inClass = false;
      out += c;
    } else if (c === '.' && !inClass) {
      out += '[^\\n\\r]';
    } else {
      out += c;
    }
  }
  return out;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp: /, '');
}

/**
 * Compiles a user pattern for the linear-time engine. Throws `UserPatternError` when the
 * pattern is empty, too long, too large once compiled, invalid, or uses a construct RE2
 * cannot run in linear time (the message names it and says what to do).
 */
export function compileUserPattern(pattern: string, options: PatternOptions = {}): UserPattern {
  if (typeof pattern !== 'string' || pattern === '') {
    throw new UserPatternError(String(pattern), 'The regular expression is empty');
  }
  if (pattern.length > PATTERN_LIMITS.maxLength) {
    throw new UserPatternError(
      pattern,
      `The regular expression is longer than ${PATTERN_LIMITS.maxLength} characters`,
    );
  }
  let flags = options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  let source = pattern;
  if (options.dialect === 'iregexp') {
    source = translateIRegexp(source);
  } else {
    const inline = /^\(\?([a-zA-Z]+)\)/.exec(source);
    if (inline) {
      for (const flag of inline[1]) {
        if (!(flag in INLINE_FLAGS)) {
          throw new UserPatternError(
            pattern,
            `Unsupported inline flag (?${flag}) in regular expression "${pattern}"`,
          );
        }
        flags |= INLINE_FLAGS[flag];
      }
      source = source.slice(inline[0].length);
    }
    source = translateJava(source);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, flags | RE2JS.LOOKBEHINDS);
  } catch (error) {
    const reason = describe(error);
    const unsupported = UNSUPPORTED.find(([message]) => message.test(reason));
    if (unsupported) {
      throw new UserPatternError(
        pattern,
        `Regular expression "${pattern}" uses ${unsupported[1]}, which the linear-time engine (RE2 syntax) does not support; rewrite it without`,
      );
    }
    throw new UserPatternError(pattern, `Invalid regular expression "${pattern}": ${reason}`);
  }
  if (compiled.programSize() > PATTERN_LIMITS.maxProgramSize) {
    throw new UserPatternError(
      pattern,
      `Regular expression "${pattern}" is too large once compiled (${compiled.programSize()} instructions, at most ${PATTERN_LIMITS.maxProgramSize}); use smaller repetition counts`,
    );
  }
  return Object.freeze({
    source: pattern,
    test: (text: string) => compiled.test(text),
    matchesWhole: (text: string) => compiled.testExact(text),
    replaceAll: (text: string, replacement: string) => compiled.matcher(text).replaceAll(replacement),
  });
}
