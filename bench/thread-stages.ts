/**
 * What an enhance thread spends per request beyond the matcher, stage by stage, in one thread
 * over a connection opened as an enhance thread opens its own (read-only, 32 MiB of page cache),
 * on the HTTP bench's queries (`bench/support/queries.ts`, issue 30). Stages:
 *
 * - `match10`: `matcher.match`, limit 10, as `enhance-inprocess.ts` times it (no explanation
 *   read); `matchip`: the same on `enhance-inprocess.ts --queries-out` lines
 *   (`--inprocess-queries FILE`: that bench's own query mix);
 * - `search`: `matcher.search` with the enhance limit; `searchx`: and the explanations of the
 *   candidates an answer lists in `searchInfo`;
 * - `enhance`: `Enhancer.enhance` in a read snapshot (`searchx`, the returned entities read and
 *   the response built); `answer`: a lone request as an enhance thread answers it (the task's
 *   JSON parsed, the response written and encoded);
 * - `batch`: requests `--batch` at a time as a batching thread answers them (one read snapshot,
 *   `BatchReads`), `batchN` N at a time;
 * - parts alone: `snapshot` (an empty read snapshot), `parse` (a task's JSON), `stringify` and
 *   `encode` (the response), `entities` (the returned entities read by id).
 *
 *   npx node --expose-gc bench/thread-stages.ts --data DIR [--queries 2000] [--rounds 3]
 *     [--batch 8] [--cache 32] [--stages match10,searchx,enhance,answer,batch] [--seed 7]
 *     [--inprocess-queries FILE]
 *
 * DIR is only read. Each stage runs once to warm up, then `--rounds` times, the stages in turn,
 * each time on a slice of `--queries` queries no stage has answered (a stage would otherwise
 * find the pages and postings the previous one read); prints each stage's CPU per query (the
 * thread's) per round and their mean, and the read system calls per query.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { BatchReads } from '../src/enhance/batch-reads.ts';
import { candidateLimit, Enhancer, matchedCount, matchQueryOf } from '../src/enhance/enhance-service.ts';
import type { AnswerTask } from '../src/enhance/enhance-threads.ts';
import { type ParsedEnhanceRequest, parseEnhanceQuery } from '../src/enhance/query.ts';
import { type EnhanceResponse, matchSummary } from '../src/enhance/response.ts';
import { createMatcher, type MatchQuery } from '../src/match/index.ts';
import { openStorage } from '../src/storage/index.ts';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { sampleQueries } from './support/queries.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    queries: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    batch: { type: 'string', default: '8' },
    cache: { type: 'string', default: '32' },
    stages: { type: 'string', default: 'match10,searchx,enhance,answer,batch' },
    seed: { type: 'string', default: '7' },
    'inprocess-queries': { type: 'string' },
  },
});
const file = sqliteFileFor(values.data!);
const storage = openStorage({ adapter: 'sqlite', file }, { readOnly: true, cacheMiB: Number(values.cache) });
const matcher = createMatcher(storage.entities);
const alone = new Enhancer({ entities: storage.entities, matcher });
const reads = new BatchReads(matcher, storage.entities);
const batched = new Enhancer(reads.deps);
const utf8 = new TextEncoder();

const chosen = values.stages.split(',');
const rounds = Number(values.rounds);
const perSlice = Number(values.queries);
// A slice of distinct queries per stage and round (and one to warm up on): no stage answers
// queries another has just read the pages and postings of.
const all = sampleQueries(file, perSlice * (1 + rounds * chosen.length), Number(values.seed));
let inputs = all.slice(0, perSlice);
let requests: ParsedEnhanceRequest[] = [];
let texts: string[] = [];
function useSlice(slice: number): void {
  inputs = all.slice(slice * perSlice, (slice + 1) * perSlice);
  requests = inputs.map((input) => parseEnhanceQuery(input, 'get'));
  texts = requests.map((request, i) =>
    JSON.stringify({ kind: 'enhance', request, queryCtx: inputs[i] } satisfies AnswerTask),
  );
}
useSlice(0);
let sink = 0;

function answer(text: string): void {
  const { request, queryCtx } = JSON.parse(text) as AnswerTask;
  const response = alone.enhance(request, queryCtx);
  const { candidates } = matchSummary(response);
  sink += utf8.encode(JSON.stringify(response)).length + matchedCount(response) + candidates;
}

const size = Number(values.batch);
/** `enhance-inprocess.ts --queries-out` lines (its own query mix), for `matchip`. */
const inprocess: MatchQuery[] = values['inprocess-queries']
  ? readFileSync(values['inprocess-queries'], 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { query: MatchQuery }).query)
  : [];
let inprocessAt = 0;
let responses: EnhanceResponse[] = [];
let jsons: string[] = [];
let winners: string[][] = [];
/** Answers of the slice made ahead, for the stages that time a part of answering alone. */
function prepareFixed(): void {
  if (!chosen.some((name) => ['stringify', 'encode', 'entities'].includes(name))) return;
  responses = storage.readSnapshot(() => requests.map((request, i) => alone.enhance(request, inputs[i])));
  jsons = responses.map((response) => JSON.stringify(response));
  winners = responses.map((response) =>
    response.data.flatMap((hit) => (hit.entity ? [String(hit.entity.id)] : [])),
  );
}
prepareFixed();
const stages: Record<string, () => void> = {
  match10: () => {
    for (const { query } of requests) sink += matcher.match(matchQueryOf(query), { limit: 10 }).length;
  },
  matchip: () => {
    // The next slice of the in-process bench's queries, as many as the other stages answer.
    for (let i = 0; i < requests.length; i++)
      sink += matcher.match(inprocess[inprocessAt++ % inprocess.length], { limit: 10 }).length;
  },
  search: () => {
    for (const { query, options } of requests)
      sink += matcher.search(matchQueryOf(query), { limit: candidateLimit(options) }).candidates.length;
  },
  searchx: () => {
    for (const { query, options } of requests)
      for (const candidate of matcher.search(matchQueryOf(query), { limit: candidateLimit(options) })
        .candidates)
        if (candidate.score >= 0.01) sink += candidate.explanation.summary.length;
  },
  enhance: () => {
    for (let i = 0; i < requests.length; i++)
      sink += storage.readSnapshot(() => alone.enhance(requests[i], inputs[i])).hits;
  },
  answer: () => {
    for (const text of texts) storage.readSnapshot(() => answer(text));
  },
  snapshot: () => {
    for (let i = 0; i < requests.length; i++) storage.readSnapshot(() => sink++);
  },
  parse: () => {
    for (const text of texts) sink += (JSON.parse(text) as AnswerTask).kind.length;
  },
  stringify: () => {
    for (const response of responses) sink += JSON.stringify(response).length;
  },
  encode: () => {
    for (const json of jsons) sink += utf8.encode(json).length;
  },
  entities: () => {
    for (const ids of winners) storage.readSnapshot(() => (sink += storage.entities.getByIds(ids).size));
  },
  batch: () => batches(size),
};
/** The slice's requests `size` at a time, each batch as enhance-thread.ts answers it. */
function batches(size: number): void {
  for (let start = 0; start < texts.length; start += size) {
    const tasks = texts.slice(start, start + size).map((text) => JSON.parse(text) as AnswerTask);
    storage.readSnapshot(() => {
      reads.prepare(tasks.map((task) => task.request));
      try {
        for (const { request, queryCtx } of tasks) {
          const response = batched.enhance(request, queryCtx);
          sink += utf8.encode(JSON.stringify(response)).length + matchSummary(response).candidates;
        }
      } finally {
        reads.clear();
      }
    });
  }
}
for (const name of chosen) {
  const n = /^batch(\d+)$/.exec(name)?.[1];
  if (n) stages[name] = () => batches(Number(n));
  if (!stages[name]) throw new Error(`unknown stage ${name}`);
}
// Warm-up: every stage once (JIT, page cache, vocabularies).
for (const name of chosen) stages[name]();
const totals = new Map<string, number[]>();
const readsPer = new Map<string, number[]>();
/** This thread's read system calls so far (`syscr`). */
function readCalls(): number {
  return Number(/syscr: (\d+)/.exec(readFileSync('/proc/thread-self/io', 'utf8'))?.[1] ?? 0);
}
for (let round = 0; round < rounds; round++) {
  for (const [j, name] of chosen.entries()) {
    // Rotated: each stage meets every slice position of the round in turn.
    useSlice(1 + round * chosen.length + ((j + round) % chosen.length));
    prepareFixed();
    const reads = readCalls();
    const before = process.threadCpuUsage();
    stages[name]();
    const used = process.threadCpuUsage(before);
    readsPer.set(name, [...(readsPer.get(name) ?? []), (readCalls() - reads) / requests.length]);
    const us = (used.user + used.system) / requests.length;
    totals.set(name, [...(totals.get(name) ?? []), us]);
  }
}
console.log(
  `thread-stages: ${perSlice} queries per stage and round, ${rounds} rounds, load ${os.loadavg()[0].toFixed(1)} (${sink % 10})`,
);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const [name, figures] of totals)
  console.log(
    `  ${name.padEnd(9)} mean ${mean(figures).toFixed(1)}  (${figures.map((us) => us.toFixed(1)).join(' / ')}) µs CPU per query, ${mean(readsPer.get(name)!).toFixed(2)} reads`,
  );
storage.close();
