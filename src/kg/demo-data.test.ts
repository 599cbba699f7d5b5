import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { isValidPhoneNumber } from 'libphonenumber-js';
import { demoExamples, demoOrganizationId, demoRecords, writeDemoGraph } from './demo-data.ts';
import type { Entity } from './entity.ts';
import { cleanEntity } from './validate-entity.ts';

async function jsonl(options: Parameters<typeof writeDemoGraph>[1]): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeDemoGraph(out, options);
  out.end();
  return Buffer.concat(chunks).toString('utf8');
}

describe('demo graph', () => {
  const options = { organizations: 400, persons: 400, seed: 7 };
  const records = [...demoRecords(options)];
  // First statements only (a second source may state an entity again, with fewer fields).
  const primary = records.filter((r) => r.origins?.[0].startsWith('https://demo.quarry.example/'));
  const orgs = primary.filter((r) => r.type === 'Organization');
  const persons = primary.filter((r) => r.type === 'Person');

  test('is deterministic: same seed and sizes give the same bytes, another seed other bytes', async () => {
    const first = await jsonl(options);
    assert.equal(first, await jsonl(options));
    assert.notEqual(first, await jsonl({ ...options, seed: 8 }));
    assert.equal(first.split('\n').length - 1, records.length);
    const [line] = first.split('\n');
    assert.deepEqual(JSON.parse(line), records[0]);
  });

  test('has the requested numbers of entities, unique ids, every record valid as is', () => {
    assert.equal(new Set(orgs.map((o) => o.id)).size, 400);
    assert.equal(new Set(persons.map((p) => p.id)).size, 400);
    for (const record of records) assert.deepEqual(cleanEntity(structuredClone(record)), record);
  });

  test('is clearly labelled synthetic: reserved domains, demo origins, descriptions say so', () => {
    for (const record of records) {
      for (const origin of record.origins ?? [])
        assert.match(origin, /^https:\/\/(registry\.)?demo\.quarry\.example\//);
      if (record.description !== undefined) assert.match(record.description, /Quarry demo data: synthetic/);
      for (const uri of record.allUris ?? []) assert.match(uri, /\.example$/);
      for (const email of record.emailAddresses ?? [])
        assert.match(email.contactString, /@[a-z-]+\.example$/);
    }
    for (const org of orgs) {
      for (const range of org.ipRanges ?? [])
        assert.match(range, /^(24\d|25[0-5])\.\d+\.\d+\.0\/24$|^2001:db8:/);
    }
  });

  test('organizations: legal suffixes, several countries, collisions and acronyms, valid phone numbers', () => {
    const countries = new Set(orgs.map((o) => o.location?.country?.name));
    assert.ok(countries.size >= 8, `only ${countries.size} countries`);
    assert.ok(
      orgs.every((o) =>
        /\b(Inc|LLC|Corp|Ltd|PLC|GmbH|AG|SA|SAS|SL|BV|NV|Ltda|KK|Pvt Ltd|Pty Ltd)$/.test(o.name ?? ''),
      ),
    );
    const byStem = new Map<string, Set<string>>();
    for (const org of orgs) {
      const stem = org.name!.split(' ').slice(0, 2).join(' ');
      byStem.set(stem, (byStem.get(stem) ?? new Set()).add(org.location!.country!.name!));
    }
    assert.ok(
      [...byStem.values()].some((c) => c.size > 1),
      'some names recur in other countries',
    );
    assert.ok(
      orgs.some((o) => /^[A-Z]{2,4} /.test(o.name!)),
      'some acronym names',
    );
    for (const org of orgs) {
      assert.ok(
        org.homepageUri && org.foundingDate && org.nbEmployees !== undefined && org.industries?.length,
      );
      for (const phone of org.phoneNumbers ?? []) {
        assert.ok(isValidPhoneNumber(phone.digits!), `${phone.digits} is not a valid number`);
        assert.match(phone.digits!, /^\+\d{6,15}$/);
      }
    }
    assert.ok(
      orgs.some((o) => o.ipRanges?.some((r) => r.includes(':'))),
      'some IPv6 ranges',
    );
  });

  test('persons: name details, a current employer that is a generated organization, e-mail at its domain', () => {
    const orgById = new Map<string, Entity>(orgs.map((o) => [o.id, o]));
    for (const person of persons.filter((p) => p.employments)) {
      assert.ok(person.nameDetail?.firstName && person.nameDetail.lastName);
      const current = person.employments!.filter((e) => e.isCurrent);
      assert.equal(current.length, 1);
      const employer = orgById.get(current[0].employer!.id!);
      assert.ok(employer, 'the employer is in the graph');
      assert.equal(current[0].employer!.name, employer.name);
      assert.ok(person.emailAddresses![0].contactString.endsWith(`@${employer.homepageUri}`));
    }
    assert.ok(persons.some((p) => p.nameDetail?.middleName));
    assert.ok(persons.some((p) => p.birthDate) && persons.some((p) => !p.birthDate));
    assert.ok(persons.some((p) => p.employments!.some((e) => e.isCurrent === false)));
    assert.ok(persons.some((p) => p.educations));
  });

  test('a few entities are stated twice by disagreeing sources', () => {
    const seen = new Map<string, Entity[]>();
    for (const record of records) seen.set(record.id, [...(seen.get(record.id) ?? []), record]);
    const twice = [...seen.values()].filter((r) => r.length === 2);
    assert.ok(twice.length >= 10 && twice.length < 40, `${twice.length} entities stated twice`);
    assert.ok(twice.every(([a, b]) => a.origins![0] !== b.origins![0]));
  });

  test('examples: an organization with a domain, a person and its current employer, a disputed organization', () => {
    const examples = demoExamples();
    assert.match(examples.organization.homepageUri ?? '', /\.example$/);
    const current = examples.person.employments?.find((e) => e.isCurrent);
    assert.equal(current?.employer?.id, examples.employer.id);
    assert.ok(examples.employer.id.startsWith('ORG-demo-'));
    assert.ok((examples.disputedOrganization.nonCanonicalFacts ?? []).length > 0);
    assert.equal(demoOrganizationId(0), examples.organization.id);
  });
});
