/**
 * A property-based fuzzer of the whole HTTP API (issue 28): requests generated with fast-check
 * from the OpenAPI document — so a new route is fuzzed without touching this file — plus
 * unknown paths, methods and content types, hostile strings, wrong types, deep nesting, invalid
 * JSON and oversized values. They are sent over kept-alive connections (a half-read body or a
 * wedged route shows up as a hang), while a prober times `GET /healthz` on a connection of its
 * own. The property: no answer is a 5xx and every request is answered.
 *
 * Outbound safety: every parameter or field that names a URL Quarry may fetch or post to gets a
 * value from `SAFE_URLS` (loopback or non-http); generated strings never contain `://`.
 */
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { Client, Pool } from 'undici';
import { REDOS_CORPUS } from '../../src/user-pattern/index.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON-schema fragment as the OpenAPI document has it. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly query: Readonly<Record<string, Schema>>;
  readonly body: Schema | undefined;
}

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface FuzzContext {
  /** Base URL of the server, e.g. `http://127.0.0.1:1234`. */
  readonly origin: string;
  /** The OpenAPI document the server serves. */
  readonly openapi: { paths: Record<string, Record<string, Record<string, unknown>>> };
  /** Valid token secrets (one is used by most requests). */
  readonly tokens: readonly string[];
  /** Known values for path parameters by name (real job ids, report ids, API names). */
  readonly pathValues: Readonly<Record<string, readonly string[]>>;
  /** URLs requests may name for fetching: loopback only (the server refuses them). */
  readonly safeUrls: readonly string[];
}

export interface FuzzOptions {
  readonly requests: number;
  readonly seed: number;
  readonly concurrency?: number;
  /** A request not answered in this time counts as a hang. */
  readonly timeoutMs?: number;
  /** Interval of the `/healthz` prober. */
  readonly probeEveryMs?: number;
}

export interface FuzzFailure {
  readonly request: FuzzRequest;
  readonly outcome: string;
}

export interface FuzzReport {
  readonly sent: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly serverErrors: readonly FuzzFailure[];
  readonly hangs: readonly FuzzFailure[];
  /** Error answers not in our body shape (`{code, message}` or `{errorCode, error}` by area). */
  readonly badErrorBodies: readonly FuzzFailure[];
  readonly healthz: {
    readonly samples: number;
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
  };
  readonly wallMs: number;
}

/** Names of parameters and fields whose value Quarry may fetch or post to. */
const URL_NAMES = /^(url|urls|seeds|apiurl|testurl|webhook|webhookurl|notifywebhook|homepageuri|links?)$/i;

/** Strings attackers and unlucky clients send. */
const NASTY = [
  '',
  ' ',
  '\u0000',
  '\t\r\n',
  '%',
  '%00',
  '%ZZ',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  "=cmd|' /C calc'!A0",
  '{{7*7}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell probe, sent as it is
  '${jndi:ldap:x}',
  '\uD800',
  '\uFEFF',
  'null',
  'true',
  '-1',
  '1e309',
  'NaN',
  '9007199254740993',
  '$[?(@.a)]',
  '$..*',
  '(a|a)*$',
  '[',
  '{"a":',
  'a'.repeat(10_000),
  '🏢 Acme GmbH & Co. KG',
  'Acme Robotics',
  'Organization',
  'Person',
  'json',
  'csv',
  'xlsx',
  '__proto__',
  'constructor',
];

const noScheme = (text: string) => text.replaceAll('://', ':/');
/** A path segment, lone surrogates made well-formed (as a client library would). */
const encode = (text: string) => encodeURIComponent(text.toWellFormed());

const nastyString = fc
  .oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
  )
  .map(noScheme);

/** JSON values of any shape. */
const anyJson: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => scrub(value as Json)) },
  { weight: 1, arbitrary: nastyString },
);

/** JSON text nested far too deep (as text: building it as a value overflows the stack). */
const deepJsonText = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** `value` with `://` taken out of every string (keys too). */
function scrub(value: Json): Json {
  if (typeof value === 'string') return noScheme(value);
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [noScheme(key), scrub(item)]));
  }
  return value;
}

/** A value for a schema: usually of its type (or one of its enum), sometimes anything. */
function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<Json> {
  if (!schema || depth > 2) return anyJson;
  const typed: fc.Arbitrary<Json>[] = [];
  if (schema.enum) typed.push(fc.constantFrom(...(schema.enum as Json[])));
  const types = [schema.type ?? [], ...(schema.anyOf ?? []).map((s) => s.type ?? [])].flat();
  for (const type of types) {
    if (type === 'string') typed.push(nastyString);
    if (type === 'integer') typed.push(fc.oneof(fc.integer({ min: -5, max: 200 }), fc.integer()));
    if (type === 'number') typed.push(fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.double()));
    if (type === 'boolean') typed.push(fc.boolean());
    if (type === 'array') typed.push(fc.array(valueFor(schema.items, depth + 1), { maxLength: 4 }));
    if (type === 'object' && schema.properties) typed.push(objectFor(schema, depth + 1));
  }
  if (typed.length === 0) return anyJson;
  return fc.oneof({ weight: 5, arbitrary: fc.oneof(...typed) }, { weight: 1, arbitrary: anyJson });
}

function objectFor(schema: Schema, depth = 0): fc.Arbitrary<Json> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  return fc
    .tuple(
      fc.subarray(names),
      fc.array(fc.tuple(nastyString, anyJson), { maxLength: 2 }),
      fc.array(valueFor(undefined), { minLength: names.length, maxLength: names.length }),
    )
    .chain(([chosen, extra]) =>
      fc.tuple(...chosen.map((name) => valueFor(properties[name], depth))).map((values) => {
        const out: Record<string, Json> = {};
        chosen.forEach((name, i) => {
          out[name] = values[i];
        });
        for (const [key, value] of extra) out[key] = value;
        return out;
      }),
    );
}

/** The operations of the OpenAPI document. */
function operationsOf(openapi: FuzzContext['openapi']): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters = (op.parameters ?? []) as { in: string; name: string; schema?: Schema }[];
      const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)
        ?.content;
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: Object.fromEntries(
          parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}]),
        ),
        body: content ? (Object.values(content)[0]?.schema ?? {}) : undefined,
      });
    }
  }
  return out;
}

/** Puts a safe URL in every field that names one, at any depth. */
function safeUrls(value: Json, urls: readonly string[], pick: number): Json {
  if (Array.isArray(value)) return value.map((item) => safeUrls(item, urls, pick));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        URL_NAMES.test(key) ? urls[pick % urls.length] : safeUrls(item, urls, pick),
      ]),
    );
  }
  return value;
}

type Body = { kind: 'json'; value: Json } | { kind: 'text'; text: string } | { kind: 'none' };

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
];

/** The arbitrary of one request against `context`'s server. */
export function requestArbitrary(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const operations = operationsOf(context.openapi);
  const documented = fc.constantFrom(...operations).chain((op) => {
    const pathValue = (name: string) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...(context.pathValues[name] ?? ['x'])) },
        { weight: 1, arbitrary: nastyString.filter((s) => s !== '') },
      );
    const queryNames = Object.keys(op.query);
    return fc.record({
      op: fc.constant(op),
      params: fc.tuple(...op.pathParams.map(pathValue), fc.constant('')),
      query: fc
        .subarray(queryNames)
        .chain((names) =>
          fc.tuple(
            fc.constant(names),
            fc.tuple(...names.map((name) => valueFor(op.query[name])), fc.constant(null)),
          ),
        ),
      extraQuery: fc.array(fc.tuple(nastyString, nastyString), { maxLength: 2 }),
      token: fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom(...context.tokens).map((t) => ({ query: t })) },
        { weight: 2, arbitrary: fc.constantFrom(...context.tokens).map((t) => ({ bearer: t })) },
        { weight: 1, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: nastyString.map((t) => ({ query: t })) },
      ),
      body: op.body
        ? fc.oneof(
            { weight: 8, arbitrary: valueFor(op.body).map((value): Body => ({ kind: 'json', value })) },
            { weight: 1, arbitrary: nastyString.map((text): Body => ({ kind: 'text', text })) },
            { weight: 1, arbitrary: deepJsonText.map((text): Body => ({ kind: 'text', text })) },
            { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
          )
        : fc.oneof(
            { weight: 9, arbitrary: fc.constant<Body>({ kind: 'none' }) },
            { weight: 1, arbitrary: anyJson.map((value): Body => ({ kind: 'json', value })) },
          ),
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/json') },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
      pick: fc.nat(),
    });
  });
  const documentedRequests = documented.map(
    ({ op, params, query, extraQuery, token, body, contentType, pick }): FuzzRequest => {
      let path = op.path;
      op.pathParams.forEach((name, i) => {
        path = path.replace(`{${name}}`, encode(params[i]));
      });
      const search = new URLSearchParams();
      const [names, values] = query;
      names.forEach((name, i) => {
        const value = URL_NAMES.test(name) ? context.safeUrls[pick % context.safeUrls.length] : values[i];
        // A download waits for its export up to `wait` seconds: keep requests short.
        const text =
          name === 'wait' ? String(pick % 3) : typeof value === 'string' ? value : JSON.stringify(value);
        search.append(name, text);
      });
      for (const [name, value] of extraQuery)
        if (!URL_NAMES.test(name) && name !== 'wait') search.append(name, value);
      if (op.path.startsWith('/kg/v3/enhance/bulk/{') && !names.includes('wait')) search.append('wait', '0');
      const headers: Record<string, string> = {};
      if ('query' in token && token.query !== undefined) search.append('token', token.query);
      if ('bearer' in token && token.bearer !== undefined) headers.authorization = `Bearer ${token.bearer}`;
      const qs = search.toString();
      let payload: string | undefined;
      if (body.kind === 'json') payload = JSON.stringify(safeUrls(body.value, context.safeUrls, pick));
      else if (body.kind === 'text') payload = body.text;
      if (payload !== undefined && contentType !== '') headers['content-type'] = contentType;
      return { method: op.method, path: qs ? `${path}?${qs}` : path, headers, body: payload };
    },
  );
  // Beyond the document: unknown paths and methods, and a few hidden routes.
  const undocumented = fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      path: fc.oneof(
        fc.constantFrom(
          '/',
          '/healthz',
          '/openapi.json',
          '/kg/v3',
          '/v3',
          '/v3/',
          '/kg/v3/enhance/bulk/report',
        ),
        fc
          .array(
            nastyString.filter((s) => s !== ''),
            { minLength: 1, maxLength: 4 },
          )
          .map((parts) => `/${parts.map((part) => encode(part)).join('/')}`),
        nastyString.map((s) => `/v3/${encode(s)}`),
      ),
      body: fc.option(anyJson, { nil: undefined }),
    })
    .map(
      ({ method, path, body }): FuzzRequest => ({
        method,
        path,
        headers:
          body === undefined || method === 'GET' || method === 'HEAD'
            ? {}
            : { 'content-type': 'application/json' },
        body: body === undefined || method === 'GET' || method === 'HEAD' ? undefined : JSON.stringify(body),
      }),
    );
  return fc.oneof({ weight: 19, arbitrary: documentedRequests }, { weight: 1, arbitrary: undocumented });
}

/** Why an error answer's body is not in the shape of its area, or `undefined` when it is. */
function errorBodyProblem(path: string, text: string): string | undefined {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 120)}`;
  }
  const areaBC = path.startsWith('/v3/') || path === '/v3' || path.startsWith('/v3?');
  const ok = areaBC
    ? typeof body.errorCode === 'number' && typeof body.error === 'string'
    : typeof body.code === 'number' && typeof body.message === 'string';
  if (!ok) return `not the ${areaBC ? '{errorCode, error}' : '{code, message}'} shape: ${text.slice(0, 120)}`;
  return undefined;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Sends `options.requests` generated requests and reports what came back. */
export function runFuzz(context: FuzzContext, options: FuzzOptions): Promise<FuzzReport> {
  const requests = fc.sample(requestArbitrary(context), { numRuns: options.requests, seed: options.seed });
  return sendAll(context, requests, options);
}

/** Sends `requests` (concurrently, over kept-alive connections) while probing `/healthz`. */
export async function sendAll(
  context: Pick<FuzzContext, 'origin'>,
  requests: readonly FuzzRequest[],
  options: Omit<FuzzOptions, 'requests' | 'seed'>,
): Promise<FuzzReport> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const pool = new Pool(context.origin, {
    connections: options.concurrency ?? 6,
    pipelining: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 30_000,
  });
  const byStatus: Record<string, number> = {};
  const serverErrors: FuzzFailure[] = [];
  const hangs: FuzzFailure[] = [];
  const badErrorBodies: FuzzFailure[] = [];
  let stopProbe = false;
  const probeTimes: number[] = [];
  const prober = (async () => {
    const client = new Client(context.origin, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    try {
      while (!stopProbe) {
        const started = performance.now();
        const res = await client.request({ method: 'GET', path: '/healthz' });
        await res.body.text();
        probeTimes.push(performance.now() - started);
        if (res.statusCode !== 200)
          serverErrors.push({
            request: { method: 'GET', path: '/healthz', headers: {} },
            outcome: `${res.statusCode}`,
          });
        await new Promise((resolve) => setTimeout(resolve, options.probeEveryMs ?? 20));
      }
    } finally {
      await client.close();
    }
  })();

  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++];
      try {
        const res = await pool.request({
          method: request.method as 'GET',
          path: request.path,
          headers: request.headers,
          body: request.body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 400 && request.method !== 'HEAD') {
          const problem = errorBodyProblem(request.path, await res.body.text());
          if (problem) badErrorBodies.push({ request, outcome: `${res.statusCode} ${problem}` });
        } else {
          await res.body.dump({ limit: 64 * 1024 * 1024 });
        }
        if (res.statusCode >= 500) serverErrors.push({ request, outcome: `${res.statusCode}` });
      } catch (error) {
        const name = (error as Error).name;
        const code = (error as { code?: string }).code ?? '';
        if (name === 'TimeoutError' || name === 'AbortError' || /TIMEOUT/.test(code)) {
          hangs.push({ request, outcome: `${name} ${code}` });
        } else {
          // The server closed the connection: an answer of sorts, but never silently on a request.
          byStatus[`error ${code || name}`] = (byStatus[`error ${code || name}`] ?? 0) + 1;
          serverErrors.push({ request, outcome: `${name} ${code}: ${(error as Error).message}` });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 6 }, worker));
  const wallMs = performance.now() - started;
  stopProbe = true;
  await prober;
  await pool.close();
  const sorted = [...probeTimes].sort((a, b) => a - b);
  return {
    sent: requests.length,
    byStatus,
    serverErrors,
    hangs,
    badErrorBodies,
    healthz: {
      samples: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? Number.NaN,
    },
    wallMs,
  };
}

/** A failure as a line a developer can replay. */
export function describeFailure(failure: FuzzFailure): string {
  const { method, path, headers, body } = failure.request;
  const shown = body === undefined ? '' : ` body=${JSON.stringify(body.slice(0, 300))}`;
  return `${failure.outcome}: ${method} ${path.slice(0, 300)} ${JSON.stringify(headers)}${shown}`;
}

/** Values for the job index and extraction API path parameters (a 30-record job's edges). */
export const JOB_INDEX_VALUES = ['0', '1', '29', '30', '-1', '1e3'];
export const API_VALUES = [
  'analyze',
  'article',
  'product',
  'organization',
  'person',
  'fuzzy',
  'custom',
  'bulk',
];

/**
 * Every pattern of the ReDoS corpus in every place a user pattern goes: a rule's urlPattern, a
 * replace filter and `:matches()` (previews, and with `saveRuleset` the first saved as a Custom
 * API), and a JSONPath `search()` filter of an enhance and of a download of job `bulkJobId`.
 */
export function redosRequests(
  token: string,
  bulkJobId: string,
  options: { readonly saveRuleset?: boolean } = {},
): FuzzRequest[] {
  const json = { 'content-type': 'application/json' };
  const requests: FuzzRequest[] = [];
  for (const { pattern, input } of REDOS_CORPUS) {
    const html = `<html><body><h1>${input}</h1><p>${input}</p></body></html>`;
    const ruleset = (rules: unknown[], urlPattern = 'example') => ({
      api: '/api/redos',
      urlPattern,
      url: `http://127.0.0.1:9/${encodeURIComponent(input)}`,
      html,
      rules,
    });
    const previews = [
      ruleset([{ name: 'title', selector: 'h1' }], pattern),
      ruleset([{ name: 'title', selector: 'h1', filters: [{ type: 'replace', args: [pattern, 'x'] }] }]),
      ruleset([{ name: 'title', selector: `p:matches(${pattern})` }]),
    ];
    for (const body of previews) {
      requests.push({
        method: 'POST',
        path: `/v3/custom/preview?token=${token}`,
        headers: json,
        body: JSON.stringify(body),
      });
    }
    if (options.saveRuleset) {
      const { html: _html, url: _url, ...saved } = previews[0];
      requests.push({
        method: 'POST',
        path: `/v3/custom?token=${token}`,
        headers: json,
        body: JSON.stringify(saved),
      });
    }
    const filter = encodeURIComponent(`$[?search(@.name, ${JSON.stringify(pattern)})]`);
    const name = encodeURIComponent(input.slice(0, 200));
    requests.push({
      method: 'GET',
      path: `/kg/v3/enhance?token=${token}&type=Organization&name=${name}&filter=${filter}`,
      headers: {},
    });
    requests.push({
      method: 'GET',
      path: `/kg/v3/enhance/bulk/${bulkJobId}?token=${token}&format=csv&filter=${filter}&wait=2`,
      headers: {},
    });
  }
  return requests;
}
