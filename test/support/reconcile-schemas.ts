/**
 * The W3C Reconciliation API 0.2 JSON schemas (../shared/spec/reconciliation-0.2/, unmodified)
 * compiled with ajv, for tests that check Quarry's `/reconcile` answers against them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

const DIR = path.join(import.meta.dirname, '..', '..', '..', 'shared', 'spec', 'reconciliation-0.2');

/** The schema files a response or request is checked against. */
export type ReconcileSchema =
  | 'manifest'
  | 'reconciliation-query-batch'
  | 'reconciliation-result-batch'
  | 'suggest-entities-response'
  | 'suggest-properties-response'
  | 'suggest-types-response'
  | 'data-extension-query'
  | 'data-extension-response'
  | 'data-extension-property-proposal';

function load(): Ajv {
  // The files declare the draft-less meta-schema `http://json-schema.org/schema#`, which ajv
  // does not ship: the schemas themselves are used as published, without meta-validation.
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true });
  addFormats.default(ajv);
  // manifest.json points its optional `authentication` at the Swagger 2.0 schema, which the
  // folder does not hold. Quarry's manifest has no `authentication` (the tests assert it), so
  // this stand-in never decides a result.
  ajv.addSchema({
    $id: 'http://swagger.io/v2/schema.json',
    definitions: { securityDefinitions: { additionalProperties: { type: 'object' } } },
  });
  for (const file of fs.readdirSync(DIR)) {
    if (!file.endsWith('.json') || file === 'openapi.json') continue;
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')), file.replace(/\.json$/, ''));
  }
  return ajv;
}

let compiled: Ajv | undefined;

/** Asserts that `value` validates against the schema `name`, listing every violation. */
export function assertValid(name: ReconcileSchema, value: unknown): void {
  compiled ??= load();
  const validate = compiled.getSchema(name);
  assert.ok(validate, `schema ${name} is loaded`);
  const ok = validate(value);
  assert.ok(
    ok,
    `${name}: ${compiled.errorsText(validate.errors, { separator: '\n' })}\n${JSON.stringify(value).slice(0, 2000)}`,
  );
}
