import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { ACME, ADA, Collector, resultRecord } from '../../test/export-fixtures.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { CoverageReport } from './coverage-report.ts';
import type { ExportOptions } from './export-plan.ts';
import { createExportPlan } from './export-plan.ts';
import type { ResultRecord } from './result-record.ts';
import { writeExport } from './write-export.ts';

const RECORDS: ResultRecord[] = [
  resultRecord(0, { type: 'Person', name: ['Ada'], customId: 'a' }, [{ entity: ADA, score: 0.97 }]),
  resultRecord(1, { type: 'Organization', name: ['Nobody'], customId: 'b' }),
  resultRecord(2, { type: 'Organization', name: ['Acme'] }, [
    { entity: ACME, score: 0.8 },
    { entity: ADA, score: 0.2 },
  ]),
];
const SPEC = 'name;nbEmployees;allNames[:1];score';

async function report(options: ExportOptions, records = RECORDS) {
  const plan = createExportPlan({ format: 'csv', exportspec: SPEC, ...options });
  const coverage = await CoverageReport.open(plan);
  try {
    for (const record of records) await coverage.add(record);
    const csv = new Collector();
    await coverage.writeCsv(csv);
    const json = new Collector();
    await coverage.writeJson(json);
    return { csv: csv.text(), json: json.text(), coverage };
  } finally {
    await coverage.dispose();
  }
}

describe('coverage report', () => {
  test('CSV: header, fractions right after it, then one 1/0 row per record', async () => {
    const { csv } = await report({});
    assert.equal(
      csv,
      'DiffbotID,Name,name,nbEmployees,allNames[:1],score,customId\r\n' +
        ',,0.6667,0.3333,0.6667,0.6667,0.6667\r\n' +
        'PER-ada,Ada Lovelace,1,0,1,1,1\r\n' +
        ',,0,0,0,0,1\r\n' +
        'ORG-acme,"Acme, ""the"" Company",1,1,1,1,0\r\n',
    );
  });

  test('JSON: columns, coverage by header, rows aligned with columns', async () => {
    const { json } = await report({});
    assert.deepEqual(JSON.parse(json), {
      columns: ['DiffbotID', 'Name', 'name', 'nbEmployees', 'allNames[:1]', 'score', 'customId'],
      coverage: {
        name: 0.6667,
        nbEmployees: 0.3333,
        'allNames[:1]': 0.6667,
        score: 0.6667,
        customId: 0.6667,
      },
      rows: [
        ['PER-ada', 'Ada Lovelace', 1, 0, 1, 1, 1],
        ['', '', 0, 0, 0, 0, 1],
        ['ORG-acme', 'Acme, "the" Company', 1, 1, 1, 1, 0],
      ],
    });
  });

  test('onlyMatches: records without a match are not in the report', async () => {
    const { csv } = await report({ onlyMatches: true });
    assert.deepEqual(csv.split('\r\n').slice(0, 2), [
      'DiffbotID,Name,name,nbEmployees,allNames[:1],score,customId',
      ',,1,0.5,1,1,0.5',
    ]);
    assert.equal(csv.split('\r\n').length, 5);
  });

  test('filters count: a removed field is not covered; DiffbotID and Name come from the unfiltered match', async () => {
    const { json } = await report({ filter: 'nbEmployees' });
    const parsed = JSON.parse(json);
    assert.equal(parsed.coverage.name, 0);
    assert.equal(parsed.coverage.nbEmployees, 0.3333);
    assert.deepEqual(parsed.rows[2].slice(0, 2), ['ORG-acme', 'Acme, "the" Company']);
  });

  test('no record: fractions are 0 and JSON rows empty', async () => {
    const { csv, json } = await report({}, []);
    assert.equal(csv, 'DiffbotID,Name,name,nbEmployees,allNames[:1],score,customId\r\n,,0,0,0,0,0\r\n');
    assert.deepEqual(JSON.parse(json).rows, []);
  });

  test('fed by writeExport it equals the report built record by record', async () => {
    const plan = createExportPlan({ format: 'xlsx', exportspec: SPEC });
    const coverage = await CoverageReport.open(plan);
    try {
      await writeExport(RECORDS, new Collector(), plan, { coverage });
      const csv = new Collector();
      await coverage.writeCsv(csv);
      assert.equal(csv.text(), (await report({ format: 'xlsx' })).csv);
      assert.equal(coverage.records, 3);
      assert.deepEqual(coverage.fractions(), [0.6667, 0.3333, 0.6667, 0.6667, 0.6667]);
    } finally {
      await coverage.dispose();
    }
  });

  test('many records stream through the temp file; dispose removes it', async () => {
    const dir = tempDir();
    try {
      const plan = createExportPlan({ format: 'csv', exportspec: 'name' });
      const coverage = await CoverageReport.open(plan, { tempDir: dir.path });
      for (let i = 0; i < 5000; i++) {
        const entity =
          i % 4 === 0 ? { id: `E${i}`, type: 'Person' } : { id: `E${i}`, type: 'Person', name: `N${i}` };
        await coverage.add(resultRecord(i, { customId: `c${i}` }, [{ entity }]));
      }
      const csv = new Collector();
      await coverage.writeCsv(csv);
      const lines = csv.text().split('\r\n');
      assert.equal(lines[1], ',,0.75,1');
      assert.equal(lines.length, 5000 + 3);
      assert.equal(lines[4999 + 2], 'E4999,N4999,1,1');
      assert.equal((await readdir(dir.path)).length, 1);
      await coverage.dispose();
      assert.deepEqual(await readdir(dir.path), []);
      await assert.rejects(coverage.writeCsv(new Collector()), /disposed/);
    } finally {
      dir.remove();
    }
  });
});
