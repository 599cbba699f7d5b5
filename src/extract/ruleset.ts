/**
 * Custom API rule sets (docs/api.md#rule-sets): their shape, validation and compilation. A rule set
 * that passes `parseRuleset` is normalised (api written `/api/<name>`, optional fields
 * omitted when absent) and compiled (URL pattern, selectors, filter regexes), so an invalid
 * one is a 400 naming the offending field before anything is stored.
 */
import { InvalidParameterError } from '../errors.ts';
import { compileUserPattern, type UserPattern } from '../user-pattern/index.ts';
import { type CompiledSelector, compileSelector } from './jsoup-selector.ts';

/** A filter of a rule. */
export type RuleFilter =
  | { readonly type: 'attribute'; readonly args: readonly [string] }
  | { readonly type: 'replace'; readonly args: readonly [string, string] }
  | { readonly type: 'exclude'; readonly args: readonly string[] };

/** A rule: one output field, from a selector or a fixed value; nested rules make a collection. */
export interface Rule {
  readonly name: string;
  readonly selector?: string;
  readonly value?: string | number | boolean;
  readonly filters?: readonly RuleFilter[];
  readonly rules?: readonly Rule[];
}

/** A rule set as stored and listed (normalised). */
export interface Ruleset {
  /** `/api/<name>`: a built-in API to extend, a new API, or `/api/all` (every API). */
  readonly api: string;
  /** Regular expression searched anywhere in the page URL (not anchored). */
  readonly urlPattern: string;
  readonly rules: readonly Rule[];
  readonly testUrl?: string;
  /** Selectors of elements removed from the page before any extraction. */
  readonly prefilters?: readonly string[];
  /** Headers sent when fetching matching URLs; an array means "pick one per request". */
  readonly xForwardHeaders?: Readonly<Record<string, string | readonly string[]>>;
  /** Kept for compatibility with exported rule sets; there is no rendering engine to use it. */
  readonly renderOptions?: string;
  readonly notes?: readonly string[];
}

/** A compiled rule, ready to run. */
export interface CompiledRule {
  readonly name: string;
  readonly selector?: CompiledSelector;
  readonly value?: string | number | boolean;
  /** Attribute to read instead of the text. */
  readonly attribute?: string;
  /** `replace` filters in order: every match of `pattern` replaced (JavaScript `$1` syntax). */
  readonly replacements: readonly { readonly pattern: UserPattern; readonly replacement: string }[];
  readonly exclude: readonly CompiledSelector[];
  /** Present for collections: the field is an array with one object per matched element. */
  readonly children?: readonly CompiledRule[];
}

/** A rule set compiled for application. */
export interface CompiledRuleset {
  readonly definition: Ruleset;
  /** The API name without `/api/` (`article`, `all`, a custom name). */
  readonly apiName: string;
  readonly urlPattern: UserPattern;
  readonly rules: readonly CompiledRule[];
  readonly prefilters: readonly CompiledSelector[];
}

/** Names of APIs that cannot be defined (they are other endpoints). */
const RESERVED_API_NAMES = new Set(['custom', 'bulk', 'crawl', 'account']);
/** Field names a rule may not set: the object's identity, and prototype-polluting keys. */
const RESERVED_FIELDS = new Set([
  'type',
  'pageUrl',
  'resolvedPageUrl',
  '__proto__',
  'constructor',
  'prototype',
]);
const RULESET_KEYS = new Set([
  'api',
  'urlPattern',
  'rules',
  'testUrl',
  'prefilters',
  'xForwardHeaders',
  'renderOptions',
  'notes',
  // Present in listings (and so in re-uploaded exports); ignored on input.
  'hash',
  'hashes',
]);
const RULE_KEYS = new Set(['name', 'selector', 'value', 'filters', 'rules']);
/** Hop-by-hop and framing headers the fetcher owns. */
const FORBIDDEN_HEADERS =
  /^(host|content-length|transfer-encoding|connection|upgrade|te|trailer|keep-alive|proxy-.*|expect)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Whether a header may be forwarded to a page (not hop-by-hop, framing or `Host`). */
export function isForwardableHeader(name: string): boolean {
  return HEADER_NAME.test(name) && !FORBIDDEN_HEADERS.test(name);
}

/** Limits that keep one rule set's cost bounded. */
export const RULESET_LIMITS = Object.freeze({
  maxRules: 500,
  maxDepth: 5,
  maxSelectorLength: 2000,
  maxPatternLength: 2000,
});

/** The API name of an `api` value: `/api/article` and `article` both give `article`. */
export function apiNameOf(api: string): string {
  return api.trim().replace(/^\/?api\//, '');
}

/** Whether `name` is a valid API name (letters, digits, `_`, `-`). */
export function isValidApiName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,100}$/.test(name);
}

function fail(path: string, message: string): never {
  throw new InvalidParameterError(path, `Invalid parameter '${path}': ${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(object: Record<string, unknown>, allowed: ReadonlySet<string>, path: string): void {
  for (const key of Object.keys(object)) {
    if (!allowed.has(key)) fail(path ? `${path}.${key}` : key, 'is not a known field');
  }
}

function selectorAt(value: unknown, path: string): CompiledSelector {
  if (typeof value !== 'string' || value.trim() === '') fail(path, 'must be a non-empty CSS selector');
  if (value.length > RULESET_LIMITS.maxSelectorLength)
    fail(path, `is longer than ${RULESET_LIMITS.maxSelectorLength} characters`);
  try {
    return compileSelector(value);
  } catch (error) {
    return fail(path, (error as Error).message);
  }
}

function regexAt(value: unknown, path: string): UserPattern {
  if (typeof value !== 'string' || value === '') fail(path, 'must be a non-empty regular expression');
  if (value.length > RULESET_LIMITS.maxPatternLength)
    fail(path, `is longer than ${RULESET_LIMITS.maxPatternLength} characters`);
  try {
    return compileUserPattern(value);
  } catch (error) {
    return fail(path, (error as Error).message);
  }
}

interface Counter {
  rules: number;
}

function parseFilters(
  raw: unknown,
  path: string,
  isValueRule: boolean,
): {
  filters: RuleFilter[];
  attribute?: string;
  replacements: CompiledRule['replacements'];
  exclude: CompiledSelector[];
} {
  if (!Array.isArray(raw)) fail(path, 'must be an array of filters');
  const filters: RuleFilter[] = [];
  const replacements: { pattern: UserPattern; replacement: string }[] = [];
  const exclude: CompiledSelector[] = [];
  let attribute: string | undefined;
  raw.forEach((filter, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(filter)) fail(at, 'must be an object {"type": ..., "args": [...]}');
    checkKeys(filter, new Set(['type', 'args']), at);
    const args = filter.args ?? [];
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string'))
      fail(`${at}.args`, 'must be an array of strings');
    switch (filter.type) {
      case 'attribute': {
        if (isValueRule) fail(at, 'an attribute filter needs a selector rule, not a value rule');
        if (attribute !== undefined) fail(at, 'a rule takes at most one attribute filter');
        if (args.length !== 1 || args[0].trim() === '')
          fail(`${at}.args`, 'must be exactly one attribute name');
        const name = (args[0] as string).trim().toLowerCase();
        attribute = name;
        filters.push({ type: 'attribute', args: [name] });
        break;
      }
      case 'replace': {
        if (args.length < 1 || args.length > 2) fail(`${at}.args`, 'must be [regex, replacement]');
        const pattern = regexAt(args[0], `${at}.args[0]`);
        const replacement = args[1] ?? '';
        replacements.push({ pattern, replacement });
        filters.push({ type: 'replace', args: [args[0], replacement] });
        break;
      }
      case 'exclude': {
        if (isValueRule) fail(at, 'an exclude filter needs a selector rule, not a value rule');
        if (args.length === 0) fail(`${at}.args`, 'must list at least one selector');
        args.forEach((selector: string, i: number) => {
          exclude.push(selectorAt(selector, `${at}.args[${i}]`));
        });
        filters.push({ type: 'exclude', args: [...args] });
        break;
      }
      default:
        fail(
          `${at}.type`,
          `unknown filter type ${JSON.stringify(filter.type)} (expected "attribute", "replace" or "exclude")`,
        );
    }
  });
  return { filters, attribute, replacements, exclude };
}

function parseRules(
  raw: unknown,
  path: string,
  depth: number,
  counter: Counter,
): { rules: Rule[]; compiled: CompiledRule[] } {
  if (!Array.isArray(raw)) fail(path, 'must be an array of rules');
  if (depth > RULESET_LIMITS.maxDepth) fail(path, `nests deeper than ${RULESET_LIMITS.maxDepth} levels`);
  const rules: Rule[] = [];
  const compiled: CompiledRule[] = [];
  const names = new Set<string>();
  raw.forEach((rule, index) => {
    const at = `${path}[${index}]`;
    counter.rules++;
    if (counter.rules > RULESET_LIMITS.maxRules)
      fail(at, `a rule set holds at most ${RULESET_LIMITS.maxRules} rules`);
    if (!isObject(rule)) fail(at, 'must be an object {"name": ..., "selector": ...}');
    checkKeys(rule, RULE_KEYS, at);
    const name = rule.name;
    if (typeof name !== 'string' || name.trim() === '') fail(`${at}.name`, 'must be a non-empty string');
    if (RESERVED_FIELDS.has(name)) fail(`${at}.name`, `"${name}" is reserved and cannot be set by a rule`);
    if (names.has(name)) fail(`${at}.name`, `duplicates the rule name "${name}"`);
    names.add(name);
    const hasSelector = rule.selector !== undefined && rule.selector !== null;
    const hasValue = rule.value !== undefined && rule.value !== null;
    if (hasSelector && hasValue) fail(at, 'has both "selector" and "value"; give exactly one');
    if (!hasSelector && !hasValue) fail(at, 'needs a "selector" or a "value"');
    if (hasValue && !['string', 'number', 'boolean'].includes(typeof rule.value)) {
      fail(`${at}.value`, 'must be a string, number or boolean');
    }
    if (hasValue && rule.rules !== undefined)
      fail(`${at}.rules`, 'nested rules need a selector for the repeating element');
    const selector = hasSelector ? selectorAt(rule.selector, `${at}.selector`) : undefined;
    const filters =
      rule.filters === undefined ? undefined : parseFilters(rule.filters, `${at}.filters`, hasValue);
    const nested =
      rule.rules === undefined ? undefined : parseRules(rule.rules, `${at}.rules`, depth + 1, counter);
    rules.push({
      name,
      ...(hasSelector ? { selector: rule.selector as string } : {}),
      ...(hasValue ? { value: rule.value as string | number | boolean } : {}),
      ...(filters && filters.filters.length > 0 ? { filters: filters.filters } : {}),
      ...(nested ? { rules: nested.rules } : {}),
    });
    compiled.push({
      name,
      selector,
      value: hasValue ? (rule.value as string | number | boolean) : undefined,
      attribute: filters?.attribute,
      replacements: filters?.replacements ?? [],
      exclude: filters?.exclude ?? [],
      children: nested?.compiled,
    });
  });
  return { rules, compiled };
}

function parseHeaders(raw: unknown, path: string): Record<string, string | string[]> {
  if (!isObject(raw)) fail(path, 'must be an object of header names to values');
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(raw)) {
    const at = `${path}.${name}`;
    if (!HEADER_NAME.test(name)) fail(at, 'is not a valid header name');
    if (FORBIDDEN_HEADERS.test(name)) fail(at, 'cannot be set (the fetcher manages it)');
    const list = Array.isArray(value) ? value : [value];
    if (list.length === 0 || list.some((v) => typeof v !== 'string' || /[\r\n\0]/.test(v))) {
      fail(at, 'must be a string or a non-empty array of strings without line breaks');
    }
    headers[name] = Array.isArray(value) ? [...(value as string[])] : (value as string);
  }
  return headers;
}

/**
 * Validates and compiles one rule set from a request body. `path` prefixes field names in
 * error messages (e.g. `[2]` for the third item of an array body). Throws
 * `InvalidParameterError` naming the first problem found.
 */
export function parseRuleset(input: unknown, path = ''): CompiledRuleset {
  const field = (name: string) => (path ? `${path}.${name}` : name);
  if (!isObject(input))
    fail(path || 'body', 'a Custom API must be a JSON object {"api", "urlPattern", "rules", ...}');
  checkKeys(input, RULESET_KEYS, path);
  if (input.api === undefined) fail(field('api'), 'is required');
  if (typeof input.api !== 'string') fail(field('api'), 'must be a string such as "/api/article"');
  const apiName = apiNameOf(input.api);
  if (!isValidApiName(apiName)) {
    fail(field('api'), `"${input.api}" is not an API name ("/api/<name>" with letters, digits, "_" or "-")`);
  }
  if (RESERVED_API_NAMES.has(apiName.toLowerCase())) fail(field('api'), `"${apiName}" is reserved`);
  if (input.urlPattern === undefined) fail(field('urlPattern'), 'is required');
  const urlPattern = regexAt(input.urlPattern, field('urlPattern'));
  if (input.rules === undefined) fail(field('rules'), 'is required (it may be an empty array)');
  const { rules, compiled } = parseRules(input.rules, field('rules'), 1, { rules: 0 });

  let testUrl: string | undefined;
  if (input.testUrl !== undefined && input.testUrl !== null && input.testUrl !== '') {
    if (typeof input.testUrl !== 'string') fail(field('testUrl'), 'must be a URL string');
    let parsed: URL | undefined;
    try {
      parsed = new URL(input.testUrl);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      fail(field('testUrl'), 'must be an absolute http or https URL');
    }
    testUrl = input.testUrl;
  }
  const prefilterSelectors: CompiledSelector[] = [];
  let prefilters: string[] | undefined;
  if (input.prefilters !== undefined && input.prefilters !== null) {
    if (!Array.isArray(input.prefilters)) fail(field('prefilters'), 'must be an array of selectors');
    prefilters = input.prefilters.map((selector: unknown, index: number) => {
      prefilterSelectors.push(selectorAt(selector, `${field('prefilters')}[${index}]`));
      return selector as string;
    });
  }
  const xForwardHeaders =
    input.xForwardHeaders === undefined || input.xForwardHeaders === null
      ? undefined
      : parseHeaders(input.xForwardHeaders, field('xForwardHeaders'));
  let renderOptions: string | undefined;
  if (input.renderOptions !== undefined && input.renderOptions !== null && input.renderOptions !== '') {
    if (typeof input.renderOptions !== 'string') fail(field('renderOptions'), 'must be a string');
    renderOptions = input.renderOptions;
  }
  let notes: string[] | undefined;
  if (input.notes !== undefined && input.notes !== null) {
    const list = Array.isArray(input.notes) ? input.notes : [input.notes];
    if (list.some((note) => typeof note !== 'string')) fail(field('notes'), 'must be an array of strings');
    notes = list as string[];
  }
  const definition: Ruleset = {
    api: `/api/${apiName}`,
    urlPattern: input.urlPattern as string,
    rules,
    ...(testUrl ? { testUrl } : {}),
    ...(prefilters && prefilters.length > 0 ? { prefilters } : {}),
    ...(xForwardHeaders && Object.keys(xForwardHeaders).length > 0 ? { xForwardHeaders } : {}),
    ...(renderOptions ? { renderOptions } : {}),
    ...(notes && notes.length > 0 ? { notes } : {}),
  };
  return { definition, apiName, urlPattern, rules: compiled, prefilters: prefilterSelectors };
}

/** Compiles a stored (already validated) rule set. */
export function compileRuleset(definition: Ruleset): CompiledRuleset {
  return parseRuleset(definition);
}

/**
 * Whether a rule set applies to `url`: its pattern is found anywhere in it (docs/api.md#rule-sets).
 */
export function matchesUrl(ruleset: CompiledRuleset, url: string): boolean {
  return ruleset.urlPattern.test(url);
}
