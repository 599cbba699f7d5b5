/**
 * JSONPath `match()` and `search()` (RFC 9535 §2.4.6, §2.4.7) on the linear-time engine, as
 * json-p3 filter functions. json-p3's own versions compile the I-Regexp to a JavaScript
 * `RegExp`, so `$[?search(@, "(.*[a-z]){10}Q")]` could hold an enhance thread or an export
 * worker for minutes. These take the same arguments and give the same answers (a pattern that
 * is not a string or does not compile matches nothing, per RFC 9535), in time linear in the
 * value's length.
 */
import { FunctionExpressionType, JSONPathEnvironment } from 'json-p3';
import { compileUserPattern, type UserPattern } from './user-pattern.ts';

/** Compiled patterns kept per function (a filter usually repeats one or two literals). */
const CACHE_SIZE = 64;

class PatternFunction {
  readonly argTypes = [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType];
  readonly returnType = FunctionExpressionType.LogicalType;
  readonly #whole: boolean;
  readonly #cache = new Map<string, UserPattern | null>();

  constructor(whole: boolean) {
    this.#whole = whole;
  }

  call(value: unknown, pattern: unknown): boolean {
    if (typeof value !== 'string' || typeof pattern !== 'string') return false;
    const compiled = this.#compile(pattern);
    if (compiled === null) return false;
    return this.#whole ? compiled.matchesWhole(value) : compiled.test(value);
  }

  #compile(pattern: string): UserPattern | null {
    const cached = this.#cache.get(pattern);
    if (cached !== undefined) return cached;
    let compiled: UserPattern | null;
    try {
      compiled = compileUserPattern(pattern, { dialect: 'iregexp' });
    } catch {
      compiled = null;
    }
    if (this.#cache.size >= CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(pattern, compiled);
    return compiled;
  }
}

/**
 * A JSONPath environment whose `match()` and `search()` run on the linear-time engine; every
 * other function and behaviour is json-p3's default.
 */
export function createSafeJsonPathEnvironment(): JSONPathEnvironment {
  const environment = new JSONPathEnvironment();
  environment.functionRegister.set('match', new PatternFunction(true));
  environment.functionRegister.set('search', new PatternFunction(false));
  return environment;
}

/** The end of the string literal starting at `open` (its quote), or -1 when unterminated. */
function literalEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === text[open]) return i;
  }
  return -1;
}

/** The value of a JSONPath string literal (RFC 9535 §2.3.1.1 escapes, either quote). */
function literalValue(literal: string): string {
  const body = literal.slice(1, -1);
  const quoted = literal[0] === "'" ? body.replace(/\\'/g, "'").replace(/"/g, '\\"') : body;
  try {
    return JSON.parse(`"${quoted}"`) as string;
  } catch {
    return body;
  }
}

/**
 * Checks the literal patterns of a JSONPath query's `match()` / `search()` calls, so that a
 * request gets a 400 naming the pattern rather than a filter that silently matches nothing.
 * Returns the first problem, or `undefined` when every literal pattern compiles. Patterns taken
 * from the data (`match(@.a, @.b)`) are checked when they are met, and never match if invalid.
 */
export function checkJsonPathPatterns(path: string): string | undefined {
  const call = /\b(match|search)\s*\(/g;
  for (let found = call.exec(path); found; found = call.exec(path)) {
    // Find the second argument at this call's top level.
    let depth = 0;
    let i = found.index + found[0].length;
    for (; i < path.length; i++) {
      const c = path[i];
      if (c === '"' || c === "'") {
        const end = literalEnd(path, i);
        if (end < 0) return undefined;
        i = end;
      } else if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    if (path[i] !== ',') continue;
    const start = path.slice(i + 1).search(/\S/) + i + 1;
    if (path[start] !== '"' && path[start] !== "'") continue;
    const end = literalEnd(path, start);
    if (end < 0) continue;
    try {
      compileUserPattern(literalValue(path.slice(start, end + 1)), { dialect: 'iregexp' });
    } catch (error) {
      return `${found[1]}(): ${(error as Error).message}`;
    }
  }
  return undefined;
}
