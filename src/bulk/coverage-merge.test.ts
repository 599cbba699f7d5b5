import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ACME, ADA, resultRecord } from '../../test/export-fixtures.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { CoverageReport, createExportPlan, type ResultRecord } from '../export/index.ts';
import { type CoverageFiles, type CoveragePart, mergeCoverageParts } from './coverage-merge.ts';

const RECORDS: ResultRecord[] = [
  resultRecord(0, { name: ['Ada'], customId: 'a' }, [{ entity: ADA, score: 0.97 }]),
  resultRecord(1, { name: ['Nobody'], customId: 'b' }),
  resultRecord(2, { name: ['Acme'] }, [{ entity: ACME }, { entity: ADA }]),
  resultRecord(3, { name: ['Acme\nagain'], customId: 'd' }, [{ entity: ACME, score: 0.5 }]),
  resultRecord(4, { name: ['Nobody'] }),
];
const PLAN = createExportPlan({ format: 'csv', exportspec: 'name;nbEmployees;allNames[:1];score' });

/**
 * The report of `records`: the whole report at `<dir>/<name>.{csv,json}`, or with `rowsOnly` its
 * rows alone (`saveRows`: a part, as an export thread leaves it); returns its files and counts.
 */
async function writeReport(
  dir: string,
  name: string,
  records: readonly ResultRecord[],
  rowsOnly = false,
): Promise<CoveragePart> {
  const report = await CoverageReport.open(PLAN, { tempDir: dir });
  try {
    for (const record of records) await report.add(record);
    const files = { csv: path.join(dir, `${name}.csv`), json: path.join(dir, `${name}.json`) };
    const counts = report.counts();
    if (rowsOnly) {
      await report.saveRows(files);
    } else {
      await report.writeCsv(fs.createWriteStream(files.csv));
      await report.writeJson(fs.createWriteStream(files.json));
    }
    return { files, counts };
  } finally {
    await report.dispose();
  }
}

describe('mergeCoverageParts', () => {
  for (const cuts of [[2], [0, 3], [3, 3], [5], [1, 4]]) {
    test(`parts cut at ${cuts.join(', ')} merge into the one-pass report, byte for byte`, async () => {
      const dir = tempDir();
      try {
        const whole = await writeReport(dir.path, 'whole', RECORDS);
        const bounds = [0, ...cuts, RECORDS.length];
        const parts: CoveragePart[] = [];
        for (let i = 0; i + 1 < bounds.length; i++)
          parts.push(await writeReport(dir.path, `part${i}`, RECORDS.slice(bounds[i], bounds[i + 1]), true));
        const target: CoverageFiles = {
          csv: path.join(dir.path, 'merged.csv'),
          json: path.join(dir.path, 'merged.json'),
        };
        await mergeCoverageParts(parts, PLAN.headers, target);
        assert.equal(fs.readFileSync(target.csv, 'utf8'), fs.readFileSync(whole.files.csv, 'utf8'));
        assert.equal(fs.readFileSync(target.json, 'utf8'), fs.readFileSync(whole.files.json, 'utf8'));
        JSON.parse(fs.readFileSync(target.json, 'utf8'));
        for (const part of parts)
          assert.ok(!fs.existsSync(part.files.csv) && !fs.existsSync(part.files.json));
        // Nothing left of the parts' reports: their temp directories went with `saveRows`.
        assert.deepEqual(
          fs.readdirSync(dir.path).filter((name) => name.startsWith('quarry-coverage-')),
          [],
        );
      } finally {
        dir.remove();
      }
    });
  }

  test('parts of no record merge into the empty report', async () => {
    const dir = tempDir();
    try {
      const whole = await writeReport(dir.path, 'whole', []);
      const parts = [await writeReport(dir.path, 'a', [], true), await writeReport(dir.path, 'b', [], true)];
      const target = { csv: path.join(dir.path, 'm.csv'), json: path.join(dir.path, 'm.json') };
      await mergeCoverageParts(parts, PLAN.headers, target);
      assert.equal(fs.readFileSync(target.json, 'utf8'), fs.readFileSync(whole.files.json, 'utf8'));
      assert.equal(fs.readFileSync(target.csv, 'utf8'), fs.readFileSync(whole.files.csv, 'utf8'));
    } finally {
      dir.remove();
    }
  });
});
