import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isFilled } from './cell-value.ts';
import { csvText } from './csv-writer.ts';
import { createExportPlan, type ExportOptions } from './export-plan.ts';
import { exportRows } from './export-rows.ts';
import type { ResultRecord, ResultResponse } from './result-record.ts';
import { compactSummary, parseSummary } from './result-summary.ts';
import { summaryCsv } from './summary-csv.ts';

const entity = (id: string, name: string, type = 'Person') => ({ id, name, type });

/** Responses whose summaries the compact form represents, with texts CSV must quote or guard. */
function responses(): ResultResponse[] {
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
    response({ type: 'Person', name: ['Ada'], customId: 'a' }, [
      { score: 0.97, esscore: 31.5, entity: entity('PER-ada', 'Ada Lovelace') },
      { score: 0.5, esscore: 10, entity: entity('ORG-acme', 'Acme, "the" Company', 'Organization') },
    ]),
    // Quotes, commas, CR and LF, formula starts (= + - @, tab, CR), plain numbers as text.
    response({ name: ['a,b', 'c"d', 'e\nf'], url: ['=HYPERLINK("x")'], phone: '+1 555', customId: '-3.5' }, [
      { score: 1, esscore: 2, entity: entity('@id', '+SUM(A1)', '-x') },
      { score: 0.25, esscore: -0, entity: entity('\tTAB', '\r\nline', 'multi\r\nline') },
    ]),
    // Unicode (two-, three- and four-byte UTF-8, a lone surrogate) and empty texts.
    response({ name: ['Zoë', '', '東京'], email: [''], location: '', employer: '🦄 Inc', customId: '' }, [
      { score: 0, esscore: 1e21, entity: entity('', '\ud800', '') },
    ]),
    // Numbers in the query; a list of one empty text; items without entity around a match.
    response({ customId: 12.5, id: 'X', title: '' }, [
      { score: 5e-324, esscore: -1.7976931348623157e308, entity: null },
      { score: 0.1 + 0.2, esscore: 0, entity: entity('"q"', '=1+1') },
      { score: 1, esscore: 1, entity: null },
    ]),
    // No match at all; an empty query; a query given as text (a failed record); no data.
    response({ name: ['Nobody'], customId: 'n' }, [{ score: 0, esscore: 0, entity: null }]),
    response({}, []),
    response('{"name":"x"}', []),
    // Members the columns do not read.
    response({ extra: 'x', more: ['a', 'b'], num: 3, name: ['Only'] }, []),
  ];
}

function record(response: ResultResponse, index: number): ResultRecord {
  const summary = compactSummary(response);
  assert.notEqual(summary, undefined, 'a compact summary');
  const parsed = parseSummary(summary!);
  const query = parsed.request_ctx.query;
  return {
    index,
    query: query !== null && typeof query === 'object' ? (query as Record<string, unknown>) : {},
    response: parsed,
    summary,
  };
}

describe('summaryCsv', () => {
  const plans: ExportOptions[] = [
    { format: 'csv' },
    { format: 'csv', exportquery: 'true' },
    { format: 'csv', onlyMatches: 'true', exportseparator: ' | ' },
    {
      format: 'csv',
      exportspec: 'id;name,Nom;type;score;esscore;query.name;query.name,Again;customId;query.extra',
    },
    { format: 'csv', exportspec: 'query.num;query.more;query.customId;type' },
  ];

  for (const options of plans) {
    test(`${JSON.stringify(options)}: the rows, top match and filled cells of the general path`, () => {
      const plan = createExportPlan(options);
      const reader = summaryCsv(plan);
      assert.ok(reader);
      responses().forEach((response, index) => {
        const r = record(response, index);
        assert.equal(reader.read(r.summary!), true);
        const rows = exportRows(r, plan);
        assert.equal(reader.text, rows.length === 0 ? '' : csvText(rows), r.summary);
        assert.equal(reader.rows, rows.length);
        if (rows.length === 0) return;
        assert.deepEqual(
          reader.filled,
          rows[0].map((cell) => isFilled(cell)),
        );
        const top = r.response.data.find((item) => item.entity != null)?.entity;
        assert.equal(reader.topId, (top?.id as string | undefined) ?? '');
        assert.equal(reader.topName, (top?.name as string | undefined) ?? '');
      });
    });
  }

  test('a summary in JSON form is not read', () => {
    const reader = summaryCsv(createExportPlan({ format: 'csv' }))!;
    assert.equal(reader.read('{"request_ctx":{"query":{}},"data":[]}'), false);
    assert.equal(reader.read('s2\u001ft\u001fx\u001f0'), false);
  });

  test('columns reading more than one member, and filters, leave it to the general path', () => {
    for (const options of [
      { exportspec: 'id;name[0]' },
      { exportspec: 'id;$.name' },
      { exportspec: 'id;name.first' },
      { exportspec: 'query.name[0]' },
      { exportspec: 'id;allNames' },
      { filter: 'name' },
    ]) {
      assert.equal(
        summaryCsv(createExportPlan({ format: 'csv', ...options })),
        undefined,
        JSON.stringify(options),
      );
    }
  });
});
