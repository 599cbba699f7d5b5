import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACME, ADA, Collector, resultRecord } from '../../test/export-fixtures.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { CoverageReport } from './coverage-report.ts';
import { createExportPlan, type ExportOptions } from './export-plan.ts';
import type { ResultRecord, ResultResponse } from './result-record.ts';
import { parseSummary, responseSummary, summaryServes } from './result-summary.ts';
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
  return [...records.map((record) => record.response), ...odd];
}

/** The records a reader makes of stored JSON text: the whole response, or its summary. */
function stored(kind: 'whole' | 'summary'): ResultRecord[] {
  return responses().map((response, index) => {
    const parsed = (
      kind === 'whole' ? JSON.parse(JSON.stringify(response)) : parseSummary(responseSummary(response))
    ) as ResultResponse;
    const query = parsed.request_ctx?.query;
    return {
      index,
      query: query !== null && typeof query === 'object' ? (query as Record<string, unknown>) : {},
      response: parsed,
    };
  });
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
    return { export: output.text(), csv: csv.text(), json: json.text() };
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
    { format: 'jsonl' },
  ];

  for (const options of served) {
    test(`${JSON.stringify(options)}: the same export and coverage report as the whole responses`, async () => {
      assert.equal(summaryServes(createExportPlan(options)), true);
      const whole = await exportWithReport(stored('whole'), options);
      const summary = await exportWithReport(stored('summary'), options);
      if (options.format === 'csv') {
        assert.match(whole.export, /Ada Lovelace/);
        assert.equal(summary.export, whole.export);
      }
      assert.match(whole.csv, /PER-ada,Ada Lovelace/);
      assert.equal(summary.csv, whole.csv);
      assert.equal(summary.json, whole.json);
    });
  }

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

  test('a summary keeps the query, the scores and the id, name and type of each entity', () => {
    const [first] = responses();
    assert.deepEqual(JSON.parse(responseSummary(first)), {
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
