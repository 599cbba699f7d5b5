import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACME, ADA, Collector, resultRecord } from '../../test/export-fixtures.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { CoverageReport } from './coverage-report.ts';
import { createExportPlan, type ExportOptions } from './export-plan.ts';
import type { ResultRecord, ResultResponse } from './result-record.ts';
import {
  compactSummary,
  jsonSummary,
  parseSummary,
  responseSummary,
  summaryServes,
} from './result-summary.ts';
import { writeExport } from './write-export.ts';

/** Responses as a bulk job stores them, odd ones included. */
function responses(): ResultResponse[] {
  const records = [
    resultRecord(0, { type: 'Person', name: ['Ada'], url: ['ada.example.org'], customId: 'a' }, [
      { entity: ADA, score: 0.97, esscore: 31.5 },
      { entity: ACME, score: 0.5 },
    ]),
    resultRecord(1, { type: 'Organization', name: ['Nobody'], customId: 'b' }),
    resultRecord(2, { type: 'Organization', name: ['Acme'], customId: '=cmd' }, [{ entity: ACME }]),
  ];
  const odd: ResultResponse[] = [
    // A failed record echoes the query text; an item without entity, one with a null entity.
    {
      version: 3,
      hits: 0,
      kgversion: '',
      request_ctx: { query: '{"name":"x"}', query_ctx: {} },
      data: [],
      errors: ['no credits'],
    },
    {
      version: 3,
      hits: 1,
      kgversion: 'k',
      request_ctx: { query: { name: ['Zoë, "Z"'], phone: '+1 555', customId: 7 }, query_ctx: {} },
      data: [
        { score: Number.NaN, esscore: 1, entity: null },
        { score: 0.3 } as never,
        { score: 0.8, esscore: 2, entity: { id: 'X-1', name: ['two', 'names'], type: undefined, extra: 1 } },
        { score: 0.7, esscore: 2, entity: { name: { first: 'Only' }, allNames: ['a'] } },
        { score: 0.6, esscore: 2, entity: 'not an object' as never },
      ],
      errors: [],
    },
  ];
  return [...records.map((record) => record.response), ...odd, ...compactEdges()];
}

/** Responses at the edges of the compact form: some it represents, some it leaves to JSON. */
function compactEdges(): ResultResponse[] {
  const entity = { id: 'E-1', name: 'Émilie du Châtelet', type: 'Person', allNames: ['x'] };
  const response = (query: unknown, data: unknown[]): ResultResponse =>
    ({
      version: 3,
      hits: data.length,
      kgversion: 'k',
      request_ctx: { query, query_ctx: {} },
      data,
      errors: [],
    }) as never;
  return [
    // Represented: numbers at the edges of doubles, -0, empty texts and lists, a null entity.
    response({ id: 'E-1', customId: 12.5, name: [], url: ['', 'a;b'], phone: '' }, [
      { score: -0, esscore: 1e21, entity },
      { score: 5e-324, esscore: -1.7976931348623157e308, entity: null },
      { score: 0.1 + 0.2, esscore: 0, entity: { ...entity, name: '=1+1', id: '"q"' } },
    ]),
    response({}, []),
    response('', []),
    // Left to JSON: the separator in a text, a key __proto__, other value kinds, missing members.
    response({ name: ['a\u001fb'] }, [{ score: 1, esscore: 1, entity }]),
    response({ customId: 'x' }, [{ score: 1, esscore: 1, entity: { ...entity, name: 'a\u001f' } }]),
    response(JSON.parse('{"__proto__":"p","name":["a"]}'), []),
    response({ location: { city: 'Paris' } }, []),
    response({ customId: true }, []),
    response({ name: ['a', 1] }, []),
    response({ name: 'a' }, [{ score: 1, esscore: 1, entity: { id: 'E-2', type: 'Person' } }]),
    response({ name: 'a' }, [{ score: 1, entity }]),
    response({ name: 'a' }, [{ score: 1, esscore: 1 }]),
    response(undefined, []),
    response({ phone: Number.POSITIVE_INFINITY }, []),
  ];
}

/**
 * The records a reader makes of stored text: the whole response, its summary as JSON (how
 * results stored before the compact form have it), or its summary as stored now.
 */
function stored(kind: 'whole' | 'json summary' | 'summary' | 'summary text', copies = 1): ResultRecord[] {
  const all = Array.from({ length: copies }, () => responses()).flat();
  return all.map((response, index) => {
    const summary = responseSummary(response);
    const parsed = (
      kind === 'whole'
        ? JSON.parse(JSON.stringify(response))
        : parseSummary(kind === 'json summary' ? jsonSummary(response) : summary)
    ) as ResultResponse;
    const query = parsed.request_ctx?.query;
    return {
      index,
      query: query !== null && typeof query === 'object' ? (query as Record<string, unknown>) : {},
      response: parsed,
      // As the export thread reads it: the stored text too (a CSV export reads a compact one).
      ...(kind === 'summary text' ? { summary } : {}),
    };
  });
}

/**
 * `bytes` with the modification time and date of every ZIP entry (local headers and central
 * directory) zeroed: two xlsx files written a moment apart differ in them when a 2-second DOS
 * time step falls between the two writes.
 */
function withoutZipTimes(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  for (let i = 0; i + 4 <= copy.length; i++) {
    const signature = copy.readUInt32LE(i);
    if (signature === 0x04034b50) copy.fill(0, i + 10, i + 14);
    else if (signature === 0x02014b50) copy.fill(0, i + 12, i + 16);
  }
  return copy;
}

async function exportWithReport(records: ResultRecord[], options: ExportOptions) {
  const dir = tempDir('quarry-summary-');
  const plan = createExportPlan(options);
  const report = await CoverageReport.open(plan, { tempDir: dir.path });
  try {
    const output = new Collector();
    await writeExport(records, output, plan, { coverage: report });
    const csv = new Collector();
    await report.writeCsv(csv);
    const json = new Collector();
    await report.writeJson(json);
    return { export: output.text(), bytes: output.buffer(), csv: csv.text(), json: json.text() };
  } finally {
    await report.dispose();
    dir.remove();
  }
}

describe('result summaries', () => {
  const served: ExportOptions[] = [
    { format: 'csv' },
    { format: 'csv', exportquery: 'true' },
    { format: 'csv', onlyMatches: 'true', exportseparator: '|' },
    { format: 'csv', exportspec: 'id;name,Nom;type;score;esscore;query.name;customId;name[0];name.first' },
    { format: 'xlsx' },
    { format: 'xls' },
    { format: 'jsonl' },
  ];

  for (const options of served) {
    test(`${JSON.stringify(options)}: the same export and coverage report as the whole responses`, async () => {
      assert.equal(summaryServes(createExportPlan(options)), true);
      const whole = await exportWithReport(stored('whole'), options);
      const json = await exportWithReport(stored('json summary'), options);
      const summary = await exportWithReport(stored('summary'), options);
      const text = await exportWithReport(stored('summary text'), options);
      if (options.format === 'csv') {
        assert.match(whole.export, /Ada Lovelace/);
        assert.match(whole.export, /Émilie du Châtelet/);
        assert.equal(json.export, whole.export);
        assert.equal(summary.export, whole.export);
        assert.equal(text.export, whole.export);
        assert.equal(text.csv, whole.csv);
        assert.equal(text.json, whole.json);
      }
      if (options.format === 'xlsx')
        assert.deepEqual(withoutZipTimes(summary.bytes), withoutZipTimes(json.bytes));
      else if (options.format !== 'csv') assert.deepEqual(summary.bytes, json.bytes);
      assert.match(whole.csv, /PER-ada,Ada Lovelace/);
      for (const form of [json, summary]) {
        assert.equal(form.csv, whole.csv);
        assert.equal(form.json, whole.json);
      }
    });
  }

  test('a CSV export read from stored summaries, compact and JSON ones mixed, over many batches', async () => {
    // 50 copies of the responses: 900 records, past the CSV writer's and the report's batches.
    for (const options of [{ format: 'csv' }, { format: 'csv', onlyMatches: 'true' }]) {
      const whole = await exportWithReport(stored('whole', 50), options);
      const text = await exportWithReport(stored('summary text', 50), options);
      assert.ok(whole.export.split('\r\n').length > 600);
      assert.equal(text.export, whole.export);
      assert.equal(text.csv, whole.csv);
      assert.equal(text.json, whole.json);
    }
  });

  test('columns or filters reading other entity members need the whole response', () => {
    for (const options of [
      { exportspec: 'id;$.name' },
      { exportspec: 'locations' },
      { exportspec: 'id;allNames[:3]' },
      { filter: 'name' },
      { filterExclude: 'allNames' },
    ]) {
      assert.equal(
        summaryServes(createExportPlan({ format: 'csv', ...options })),
        false,
        JSON.stringify(options),
      );
    }
  });

  test('the compact form reads as the same object as the JSON form, members in the same order', () => {
    let compact = 0;
    for (const response of responses()) {
      const json = jsonSummary(response);
      const stored = responseSummary(response);
      const parsed = parseSummary(stored);
      assert.deepStrictEqual(parsed, JSON.parse(json), json);
      assert.equal(JSON.stringify(parsed), json);
      if (compactSummary(response) !== undefined) {
        assert.equal(stored.startsWith('s1\u001f'), true, json);
        compact++;
      } else {
        assert.equal(stored, json);
      }
    }
    // Which responses the compact form takes: the first three records, the text query, and
    // the three represented edges; the rest (NaN score, other kinds, the separator) stay JSON.
    assert.equal(compact, 7);
    assert.equal(
      responseSummary(responses()[0]),
      [
        's1',
        'o',
        '4',
        'type',
        's',
        'Person',
        'name',
        'a',
        '1',
        'Ada',
        'url',
        'a',
        '1',
        'ada.example.org',
        'customId',
        's',
        'a',
        '2',
        'e',
        '0.97',
        '31.5',
        'PER-ada',
        'Ada Lovelace',
        'Person',
        'e',
        '0.5',
        '10',
        'ORG-acme',
        'Acme, "the" Company',
        'Organization',
      ].join('\u001f'),
    );
  });

  test('a summary keeps the query, the scores and the id, name and type of each entity', () => {
    const [first] = responses();
    assert.deepEqual(parseSummary(responseSummary(first)), {
      request_ctx: { query: first.request_ctx.query },
      data: [
        { score: 0.97, esscore: 31.5, entity: { id: 'PER-ada', name: 'Ada Lovelace', type: 'Person' } },
        {
          score: 0.5,
          esscore: 10,
          entity: { id: 'ORG-acme', name: 'Acme, "the" Company', type: 'Organization' },
        },
      ],
    });
  });
});
