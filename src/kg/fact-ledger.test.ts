import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Entity } from './entity.ts';
import {
  applyStatement,
  canonicalizeInPlace,
  canonicalStatement,
  elementOriginsOf,
  factOriginsOf,
  type LedgerState,
  mergeStatements,
  sourceOf,
  structuralKey,
  TypeConflict,
} from './fact-ledger.ts';

function org(fields: Partial<Entity>): Entity {
  return { id: 'ORG-1', type: 'Organization', ...fields };
}

/** Applies statements in order, each as `[source, statement]`. */
function state(...statements: [string, Entity][]): LedgerState {
  let current: LedgerState | undefined;
  for (const [source, statement] of statements) current = applyStatement(current, source, statement);
  return current!;
}

/** JSON round trip, as the store does. */
function stored(s: LedgerState): LedgerState {
  return JSON.parse(JSON.stringify(s)) as LedgerState;
}

describe('sourceOf', () => {
  test('is the label, else the sorted origins, else the file', () => {
    const stated = org({ origins: ['https://b.example/', 'https://a.example/', 'https://b.example/'] });
    assert.equal(sourceOf(stated, { label: 'crm', fileName: 'x.jsonl' }), 'crm');
    assert.equal(sourceOf(stated, { fileName: 'x.jsonl' }), 'https://a.example/ https://b.example/');
    assert.equal(sourceOf(org({}), { fileName: 'x.jsonl' }), 'import:x.jsonl');
  });
});

describe('fact ledger', () => {
  test('a single source: the document is the statement, no second copy is stored', () => {
    const statement = org({ name: 'Acme', homepageUri: 'acme.example', origins: ['https://acme.example/'] });
    const s = state(['https://acme.example/', statement]);
    assert.deepEqual(s.doc, { ...statement, allNames: ['Acme'] });
    assert.equal(s.ledger, null, 'source identified by the document origins: no ledger at all');
    const labelled = state(['crm', org({ name: 'Acme', description: 'x'.repeat(5000) })]);
    assert.deepEqual(labelled.ledger, { sources: [{ source: 'crm' }] });
    assert.ok(JSON.stringify(labelled.ledger).length < 50);
    assert.deepEqual(factOriginsOf(labelled.doc, labelled.ledger), {
      name: ['crm'],
      description: ['crm'],
      allNames: ['crm'],
    });
    assert.deepEqual(factOriginsOf(s.doc, s.ledger).homepageUri, ['https://acme.example/']);
  });

  test('two sources agreeing: one value, both origins support it, no non-canonical facts', () => {
    const s = state(
      [
        'a',
        org({ name: 'Acme', foundingDate: { str: 'd1990', precision: 1 }, origins: ['https://a.example/'] }),
      ],
      ['b', org({ foundingDate: { precision: 1, str: 'd1990' }, origins: ['https://b.example/'] })],
    );
    assert.deepEqual(s.doc.foundingDate, { precision: 1, str: 'd1990' });
    assert.equal(s.doc.nonCanonicalFacts, undefined);
    const origins = factOriginsOf(s.doc, s.ledger);
    assert.deepEqual(origins.foundingDate, ['https://a.example/', 'https://b.example/']);
    assert.deepEqual(origins.name, ['https://a.example/']);
    assert.deepEqual(s.doc.origins, ['https://b.example/', 'https://a.example/']);
  });

  test('two sources disagreeing: the most recent wins a tie, the other is non-canonical', () => {
    const s = state(
      ['a', org({ nbEmployees: 120, origins: ['https://a.example/'] })],
      ['crm', org({ nbEmployees: 150 })],
    );
    assert.equal(s.doc.nbEmployees, 150);
    assert.deepEqual(s.doc.nonCanonicalFacts, [
      { field: 'nbEmployees', value: 120, origins: ['https://a.example/'] },
    ]);
    assert.deepEqual(factOriginsOf(s.doc, s.ledger).nbEmployees, ['crm']);
  });

  test('the value stated by the most sources wins over a more recent one', () => {
    const s = state(
      ['a', org({ foundingDate: { str: 'd1990' } })],
      ['b', org({ foundingDate: { str: 'd1990' } })],
      ['c', org({ foundingDate: { str: 'd1991' } })],
    );
    assert.deepEqual(s.doc.foundingDate, { str: 'd1990' });
    assert.deepEqual(s.doc.nonCanonicalFacts, [
      { field: 'foundingDate', value: { str: 'd1991' }, origins: ['c'] },
    ]);
    assert.deepEqual(factOriginsOf(s.doc, s.ledger).foundingDate, ['a', 'b']);
  });

  test('a source updating itself replaces its statement instead of voting twice', () => {
    const s = state(
      ['a', org({ name: 'Acme', nbEmployees: 10 })],
      ['b', org({ name: 'Acme', nbEmployees: 20 })],
      ['a', org({ name: 'Acme', nbEmployees: 20 })],
    );
    assert.equal(s.doc.nbEmployees, 20);
    assert.equal(s.doc.nonCanonicalFacts, undefined);
    assert.equal((s.ledger?.sources ?? []).length, 2);
    assert.deepEqual(
      s.ledger?.sources.map((e) => e.source),
      ['b', 'a'],
      'the updating source becomes the most recent',
    );
  });

  test('a source dropping a field removes its support; a field nobody states disappears', () => {
    const s = state(
      ['a', org({ name: 'Acme', description: 'Makes anvils', homepageUri: 'acme.example' })],
      ['b', org({ name: 'Acme', homepageUri: 'acme.example' })],
      ['a', org({ name: 'Acme', homepageUri: 'acme.example' })],
    );
    assert.equal(s.doc.description, undefined);
    assert.equal('description' in factOriginsOf(s.doc, s.ledger), false);
    const single = state(['a', org({ name: 'Acme', description: 'x' })], ['a', org({ name: 'Acme' })]);
    assert.deepEqual(single.doc, org({ name: 'Acme', allNames: ['Acme'] }));
  });

  test('list fields are de-duplicated unions, each element remembering its origins', () => {
    const s = stored(
      state(
        [
          'a',
          org({
            allUris: ['acme.example', 'acme.example'],
            emailAddresses: [{ contactString: 'Info@Acme.example' }],
            industries: ['Anvils'],
            origins: ['https://a.example/'],
          }),
        ],
        [
          'b',
          org({
            allUris: ['acme.example', 'acme.test'],
            emailAddresses: [{ contactString: 'info@acme.example', type: 'work' }],
            industries: ['Anvils', 'Rockets'],
            origins: ['https://b.example/'],
          }),
        ],
      ),
    );
    assert.deepEqual(s.doc.allUris, ['acme.example', 'acme.test']);
    assert.deepEqual(s.doc.industries, ['Anvils', 'Rockets']);
    assert.equal(s.doc.emailAddresses?.length, 1, 'same address in another case is one fact');
    assert.deepEqual(elementOriginsOf(s.doc, s.ledger, 'allUris'), [
      ['https://a.example/', 'https://b.example/'],
      ['https://b.example/'],
    ]);
    assert.deepEqual(elementOriginsOf(s.doc, s.ledger, 'industries')[1], ['https://b.example/']);
    assert.deepEqual(factOriginsOf(s.doc, s.ledger).allUris, ['https://a.example/', 'https://b.example/']);
    assert.deepEqual(elementOriginsOf(s.doc, s.ledger, 'images'), []);
  });

  test('the names of every source appear in allNames; losing names are non-canonical too', () => {
    const s = state(
      ['a', org({ name: 'Acme Corp', allNames: ['ACME'] })],
      ['b', org({ name: 'Acme Corporation' })],
    );
    assert.equal(s.doc.name, 'Acme Corporation');
    assert.deepEqual(s.doc.allNames, ['Acme Corporation', 'ACME', 'Acme Corp']);
    assert.deepEqual(s.doc.nonCanonicalFacts, [{ field: 'name', value: 'Acme Corp', origins: ['a'] }]);
    assert.deepEqual(factOriginsOf(s.doc, s.ledger).allNames, ['a', 'b']);
  });

  test('the stored state round-trips: applying after a JSON round trip gives the same result', () => {
    const first = stored(
      state(['https://a.example/', org({ name: 'Acme', nbEmployees: 1, origins: ['https://a.example/'] })]),
    );
    assert.equal(first.ledger, null);
    const second = stored(applyStatement(first, 'b', org({ name: 'Acme', nbEmployees: 2 })));
    const direct = state(
      ['https://a.example/', org({ name: 'Acme', nbEmployees: 1, origins: ['https://a.example/'] })],
      ['b', org({ name: 'Acme', nbEmployees: 2 })],
    );
    assert.deepEqual(second, stored(direct));
    assert.equal(second.ledger?.sources[0].source, 'https://a.example/');
  });

  test('restating the same statement changes nothing, not even which source is most recent', () => {
    const s = state(['a', org({ nbEmployees: 1 })], ['b', org({ nbEmployees: 2 })]);
    assert.equal(s.doc.nbEmployees, 2);
    assert.equal(applyStatement(s, 'a', org({ nbEmployees: 1 })), s);
    assert.equal(applyStatement(stored(s), 'a', org({ nbEmployees: 1 })).doc.nbEmployees, 2);
  });

  test('non-canonical facts are recomputed, never stated', () => {
    const s = state(
      ['a', org({ nbEmployees: 1 })],
      ['b', org({ nbEmployees: 2 })],
      ['b', org({ nbEmployees: 1 })],
    );
    assert.equal(s.doc.nbEmployees, 1);
    assert.equal(s.doc.nonCanonicalFacts, undefined);
  });

  test('a statement of another type is refused', () => {
    const s = state(['a', org({ name: 'Acme' })]);
    assert.throws(
      () => applyStatement(s, 'b', { id: 'ORG-1', type: 'Person', name: 'Acme' }),
      (error: unknown) =>
        error instanceof TypeConflict && /type Person differs from .* Organization/.test(error.message),
    );
  });

  test('merging is deterministic and structural comparison ignores key order', () => {
    assert.equal(
      structuralKey({ b: 1, a: [1, { d: 2, c: 'x' }] }),
      structuralKey({ a: [1, { c: 'x', d: 2 }], b: 1 }),
    );
    const sources = [
      { source: 'a', statement: org({ location: { city: { name: 'Lyon' }, country: { name: 'France' } } }) },
      { source: 'b', statement: org({ location: { country: { name: 'France' }, city: { name: 'Lyon' } } }) },
    ];
    const doc = mergeStatements(sources);
    assert.equal(doc.nonCanonicalFacts, undefined);
    assert.deepEqual(mergeStatements(sources), doc);
  });
});

describe('canonicalStatement', () => {
  test('equals the single-source merge, field order included', () => {
    const cases: Entity[] = [
      org({ name: 'Acme' }),
      org({ allNames: ['ACME', 'Acme', 'ACME'], name: 'Acme', allUris: ['a.example', 'a.example'] }),
      org({ allNames: ['Acme'], name: 'Acme', industries: ['X'] }),
      org({ allNames: ['Other'], description: 'no name' }),
      org({
        emailAddresses: [{ contactString: 'A@x.example' }, { contactString: 'a@x.example', type: 'work' }],
      }),
      org({ locations: [{ city: { name: 'Lyon' } }, { city: { name: 'Lyon' } }], name: 'L' }),
      org({ allNames: ['B', 'B'], name: 'A' }),
      org({ allNames: ['A', 'B'], name: 'A', allUris: ['x', 'y'] }),
    ];
    for (const statement of cases) {
      const merged = mergeStatements([{ source: 's', statement: structuredClone(statement) }]);
      const canonical = canonicalStatement(structuredClone(statement));
      assert.equal(JSON.stringify(canonical), JSON.stringify(merged));
      const copy = structuredClone(statement);
      assert.equal(canonicalizeInPlace(copy), JSON.stringify(copy) !== JSON.stringify(statement));
    }
  });
});

describe("a source's own non-canonical facts (ranked values)", () => {
  const WD = 'https://www.wikidata.org/wiki/Q1';
  function ranked(fields: Partial<Entity>): Entity {
    return org({ origins: [WD], ...fields });
  }

  test('one source: its lower-ranked values are the non-canonical facts, kept across re-statements', () => {
    const statement = ranked({
      homepageUri: 'acme.example',
      employments: [{ title: 'x' }],
      nonCanonicalFacts: [
        { field: 'homepageUri', value: 'old-acme.example', origins: [WD] },
        { field: 'homepageUri', value: 'acme.example', origins: [WD] },
        { field: 'homepageUri', value: 'old-acme.example', origins: [WD] },
      ],
    });
    const s = state([WD, statement]);
    // The value equal to the canonical one and the repeated one are left out.
    assert.deepEqual(s.doc.nonCanonicalFacts, [
      { field: 'homepageUri', value: 'old-acme.example', origins: [WD] },
    ]);
    assert.equal(s.ledger, null);
    // Restating the same thing from the stored form changes nothing.
    const again = applyStatement(stored(s), WD, structuredClone(statement));
    assert.deepEqual(again, stored(s));
    // canonicalStatement gives the same document as the merge.
    assert.equal(
      JSON.stringify(canonicalStatement(structuredClone(statement))),
      JSON.stringify(mergeStatements([{ source: WD, statement: structuredClone(statement) }])),
    );
  });

  test('another source keeps them, and a value another source states as a fact is canonical, not listed', () => {
    const wikidata = ranked({
      homepageUri: 'acme.example',
      nonCanonicalFacts: [{ field: 'homepageUri', value: 'acme-old.example', origins: [WD] }],
    });
    const crm = org({ homepageUri: 'acme-old.example', nbEmployees: 10 });
    const s = state([WD, wikidata], ['crm', crm]);
    // Tie (one source each): the newest (crm) wins; the Wikidata preferred value loses, and its
    // own alternative is now canonical, so it is not listed again.
    assert.equal(s.doc.homepageUri, 'acme-old.example');
    assert.deepEqual(s.doc.nonCanonicalFacts, [
      { field: 'homepageUri', value: 'acme.example', origins: [WD] },
    ]);
    // The Wikidata statement keeps its own alternatives in the ledger.
    const kept = s.ledger?.sources.find((entry) => entry.source === WD)?.statement;
    assert.deepEqual(kept?.nonCanonicalFacts, wikidata.nonCanonicalFacts);
    // A newer Wikidata statement replaces its own alternatives; crm's facts stay.
    const newer = ranked({
      homepageUri: 'acme.example',
      nonCanonicalFacts: [{ field: 'homepageUri', value: 'acme.biz', origins: [WD] }],
    });
    const next = applyStatement(stored(s), WD, newer);
    assert.equal(next.doc.nbEmployees, 10);
    assert.equal(next.doc.homepageUri, 'acme.example');
    assert.deepEqual(next.doc.nonCanonicalFacts, [
      { field: 'homepageUri', value: 'acme-old.example', origins: ['crm'] },
      { field: 'homepageUri', value: 'acme.biz', origins: [WD] },
    ]);
  });

  test('a list element stated as an alternative is left out when the list holds it', () => {
    const statement = ranked({
      industries: ['Software'],
      nonCanonicalFacts: [
        { field: 'industries', value: 'Software', origins: [WD] },
        { field: 'industries', value: 'Hardware', origins: [WD] },
      ],
    });
    assert.deepEqual(canonicalStatement(statement).nonCanonicalFacts, [
      { field: 'industries', value: 'Hardware', origins: [WD] },
    ]);
  });
});
