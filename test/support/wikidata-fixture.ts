/**
 * The Wikidata import's test dump: hand-written entities covering the cases the import must
 * handle (ranks, several P31 values, no English label, novalue / somevalue, dates of precision
 * 9, 10 and 11 and BC, employer chains, an organization people refer to, malformed lines), then
 * seeded filler (people employed by companies with websites, items that are not selected) to make
 * at least 300 entity lines. Everything is in the dumps' exact JSON shape (`wikidata-dump.ts`).
 */
import {
  type Claim,
  dumpText,
  dv,
  type EntitySpec,
  entity,
  fromWikipedia,
  Seeded,
  statedIn,
} from './wikidata-dump.ts';

/** Ids of the hand-written entities the tests look at. */
export const WD = Object.freeze({
  // Organizations (selected)
  acme: 'Q900001',
  acmeRobotics: 'Q900002',
  beispielUniversity: 'Q900003',
  sony: 'Q900004',
  notACompany: 'Q900005',
  agency: 'Q900007',
  institute: 'Q900008',
  academy: 'Q900009',
  bakery: 'Q900010',
  // People (selected)
  jane: 'Q900101',
  john: 'Q900102',
  disputedBirth: 'Q900103',
  preferredBirth: 'Q900104',
  philosopher: 'Q900105',
  jean: 'Q900106',
  liWei: 'Q900107',
  twoClasses: 'Q900108',
  unknowns: 'Q900109',
  dead: 'Q900110',
  polyglot: 'Q900111',
  // Not selected: a fictional human, a property
  fictional: 'Q900201',
});

/** Dump line numbers (1-based, the `[` line is 1) of the malformed lines, with why. */
export interface FixtureDump {
  readonly text: string;
  /** Entity lines (every line but `[` and `]`). */
  readonly entityLines: number;
  readonly malformed: readonly { readonly line: number; readonly reason: RegExp }[];
  /** Filler people: id, name, employer id, employer name, employer host. */
  readonly staff: readonly {
    readonly id: string;
    readonly name: string;
    readonly employer: string;
    readonly employerName: string;
    readonly employerHost: string;
  }[];
}

const Q5: Claim = ['P31', dv.item(5), { references: [statedIn(36578)] }];
const ref = { references: [statedIn(36578), fromWikipedia('Example')] };

/** The hand-written entities: places, classes and names the others refer to, then the cases. */
function handWritten(): EntitySpec[] {
  return [
    // Places, occupations, names, degrees: referred to, never selected.
    {
      id: 'Q30',
      labels: { en: 'United States of America', mul: 'United States' },
      claims: [['P31', dv.item(6256)]],
    },
    { id: 'Q183', labels: { en: 'Germany', de: 'Deutschland' }, claims: [['P31', dv.item(6256)]] },
    { id: 'Q142', labels: { fr: 'France', en: 'France' }, claims: [['P31', dv.item(6256)]] },
    {
      id: 'Q148',
      labels: { en: "People's Republic of China", zh: '中华人民共和国' },
      claims: [['P31', dv.item(6256)]],
    },
    { id: 'Q41', labels: { en: 'Greece' }, claims: [['P31', dv.item(6256)]] },
    {
      id: 'Q62',
      labels: { en: 'San Francisco' },
      claims: [
        ['P31', dv.item(515)],
        ['P17', dv.item(30)],
      ],
    },
    { id: 'Q486860', labels: { en: 'Mountain View' }, claims: [['P31', dv.item(515)]] },
    { id: 'Q64', labels: { en: 'Berlin', de: 'Berlin' }, claims: [['P31', dv.item(515)]] },
    { id: 'Q90', labels: { fr: 'Paris', en: 'Paris' }, claims: [['P31', dv.item(515)]] },
    // A city with no English label: its name comes from `mul`, then any language.
    { id: 'Q1490', labels: { ja: '東京都', mul: 'Tokyo' }, claims: [['P31', dv.item(515)]] },
    { id: 'Q97', labels: { el: 'Αθήνα' }, claims: [['P31', dv.item(515)]] },
    { id: 'Q82594', labels: { en: 'computer scientist' }, claims: [['P31', dv.item(28640)]] },
    { id: 'Q4964182', labels: { en: 'philosopher' }, claims: [['P31', dv.item(28640)]] },
    { id: 'Q484876', labels: { en: 'chief executive officer' }, claims: [['P31', dv.item(4164871)]] },
    { id: 'Q43845', labels: { en: 'businessperson' }, claims: [['P31', dv.item(28640)]] },
    { id: 'Q11661', labels: { en: 'information technology' }, claims: [['P31', dv.item(268592)]] },
    { id: 'Q880371', labels: { en: 'energy industry' }, claims: [['P31', dv.item(268592)]] },
    { id: 'Q163727', labels: { en: 'Bachelor of Science' }, claims: [['P31', dv.item(189533)]] },
    { id: 'Q21198', labels: { en: 'computer science' }, claims: [['P31', dv.item(11862829)]] },
    { id: 'Q48270', labels: { en: 'non-binary' }, claims: [['P31', dv.item(48264)]] },
    { id: 'Q700001', labels: { en: 'Jane', mul: 'Jane' }, claims: [['P31', dv.item(11879590)]] },
    { id: 'Q700002', labels: { en: 'Marie' }, claims: [['P31', dv.item(11879590)]] },
    { id: 'Q700003', labels: { en: 'Doe', mul: 'Doe' }, claims: [['P31', dv.item(101352)]] },

    // Acme: several P31 values; ranked websites; HQ with qualifiers; counts at two points in time.
    {
      id: WD.acme,
      labels: { en: 'Acme Corporation', de: 'Acme AG', fr: 'Acme' },
      descriptions: { en: 'American manufacturer of everything', de: 'Hersteller' },
      aliases: { en: ['Acme Corp.', 'ACME'], de: ['Acme Konzern'] },
      claims: [
        ['P31', dv.item(4830453), ref],
        ['P31', dv.item(891723), ref],
        ['P856', dv.string('https://www.acme-corp.example/'), { rank: 'preferred', ...ref }],
        ['P856', dv.string('http://acme.example/legacy'), ref],
        ['P856', dv.string('http://acme-spam.example/'), { rank: 'deprecated' }],
        ['P17', dv.item(30), ref],
        [
          'P159',
          dv.item(62),
          {
            qualifiers: [
              ['P6375', dv.text('1 Market Street', 'en')],
              ['P281', dv.string('94105')],
              ['P625', dv.globe(37.7936, -122.3958)],
            ],
            ...ref,
          },
        ],
        ['P571', dv.time('+1952-03-11T00:00:00Z', 11), ref],
        ['P571', dv.time('+1952-00-00T00:00:00Z', 9), ref],
        ['P1128', dv.quantity(1000), { qualifiers: [['P585', dv.time('+2019-00-00T00:00:00Z', 9)]], ...ref }],
        [
          'P1128',
          dv.quantity(1200),
          { qualifiers: [['P585', dv.time('+2021-12-31T00:00:00Z', 11)]], ...ref },
        ],
        ['P452', dv.item(11661)],
        ['P452', dv.item(880371), { rank: 'deprecated' }],
        ['P2002', dv.string('acmecorp')],
        ['P4264', dv.string('acme-corporation')],
        ['P1278', dv.string('5493001KJTIIGC8Y1R12')],
        ['P154', dv.string('Acme logo 2020.svg')],
        ['P355', dv.item(900002)],
        ['P169', dv.item(900101), { qualifiers: [['P580', dv.time('+2015-01-01T00:00:00Z', 11)]] }],
        ['P112', 'somevalue'],
        ['P1448', dv.text('Acme Corporation, Inc.', 'en')],
      ],
      sitelinks: { enwiki: 'Acme Corporation', dewiki: 'Acme AG' },
    },
    // Acme Robotics: a subsidiary (employer chain: people → Acme Robotics → Acme), dissolved.
    {
      id: WD.acmeRobotics,
      labels: { en: 'Acme Robotics' },
      claims: [
        ['P31', dv.item(658255)],
        ['P749', dv.item(900001), ref],
        ['P856', dv.string('https://robotics.acme-corp.example')],
        ['P17', dv.item(30)],
        ['P131', dv.item(486860)],
        ['P571', dv.time('+1999-00-00T00:00:00Z', 9)],
        ['P576', dv.time('+2020-05-00T00:00:00Z', 10)],
      ],
    },
    // No English label, no mul: the name is the German label.
    {
      id: WD.beispielUniversity,
      labels: { de: 'Universität Beispielstadt', fr: 'Université de Beispielstadt' },
      descriptions: { de: 'Universität in Deutschland' },
      claims: [
        ['P31', dv.item(3918)],
        ['P856', dv.string('https://www.uni-beispielstadt.example/')],
        ['P17', dv.item(183)],
        ['P159', dv.item(64)],
      ],
    },
    // No English label, a `mul` one: it wins over Japanese.
    {
      id: WD.sony,
      labels: { ja: 'ソニー', mul: 'Sony Example' },
      claims: [
        ['P31', dv.item(4830453)],
        ['P17', dv.item(1490)],
        ['P159', dv.item(1490)],
      ],
    },
    // Its company P31 is deprecated: not selected.
    {
      id: WD.notACompany,
      labels: { en: 'Not Really A Company' },
      claims: [
        ['P31', dv.item(4830453), { rank: 'deprecated' }],
        ['P31', dv.item(13442814)],
      ],
    },
    // A P31 novalue and a somevalue: neither selects.
    {
      id: 'Q900006',
      labels: { en: 'Unknown Kind' },
      claims: [
        ['P31', 'novalue'],
        ['P31', 'somevalue'],
      ],
    },
    // A government agency located by P131 only; its country is unknown (somevalue), its website none (novalue).
    {
      id: WD.agency,
      labels: { en: 'Example Regulatory Agency' },
      claims: [
        ['P31', dv.item(327333)],
        ['P131', dv.item(90)],
        ['P17', 'somevalue'],
        ['P856', 'novalue'],
      ],
    },
    // A university people studied at; its line lists its keys in another order (as the API does).
    {
      id: WD.institute,
      labels: { en: 'Example Institute of Technology' },
      aliases: { en: ['EIT'] },
      claims: [
        ['P31', dv.item(3918)],
        ['P856', dv.string('https://www.eit.example/')],
        ['P17', dv.item(30)],
      ],
    },
    // Founded in 387 BC (precision 9).
    {
      id: WD.academy,
      labels: { en: 'The Academy', el: 'Ακαδημία Πλάτωνος' },
      claims: [
        ['P31', dv.item(189004)],
        ['P571', dv.time('-0387-00-00T00:00:00Z', 9, 'Q1985786')],
        ['P131', dv.item(97)],
        ['P17', dv.item(41)],
      ],
    },
    // An employer that is not an organization class (a restaurant): referred to, not imported.
    { id: WD.bakery, labels: { en: 'Corner Bakery' }, claims: [['P31', dv.item(11707)]] },

    // Jane Doe: employer chain, education with degree and major, occupation, image, social.
    {
      id: WD.jane,
      labels: { en: 'Jane Doe', de: 'Jane Doe', ru: 'Джейн Доу' },
      descriptions: { en: 'American computer scientist and business executive' },
      aliases: { en: ['Jane Q. Doe'] },
      claims: [
        Q5,
        ['P21', dv.item(6581072)],
        ['P27', dv.item(30)],
        ['P551', dv.item(486860)],
        ['P569', dv.time('+1970-01-15T00:00:00Z', 11), ref],
        [
          'P108',
          dv.item(900001),
          {
            qualifiers: [
              ['P580', dv.time('+2010-01-01T00:00:00Z', 11)],
              ['P2868', dv.item(484876)],
            ],
            ...ref,
          },
        ],
        [
          'P108',
          dv.item(900002),
          {
            qualifiers: [
              ['P580', dv.time('+2001-00-00T00:00:00Z', 9)],
              ['P582', dv.time('+2009-06-00T00:00:00Z', 10)],
            ],
          },
        ],
        [
          'P69',
          dv.item(900008),
          {
            qualifiers: [
              ['P512', dv.item(163727)],
              ['P812', dv.item(21198)],
              ['P580', dv.time('+1988-00-00T00:00:00Z', 9)],
              ['P582', dv.time('+1992-00-00T00:00:00Z', 9)],
            ],
          },
        ],
        ['P106', dv.item(82594)],
        ['P735', dv.item(700001), { qualifiers: [['P1545', dv.string('1')]] }],
        ['P735', dv.item(700002), { qualifiers: [['P1545', dv.string('2')]] }],
        ['P734', dv.item(700003)],
        ['P18', dv.string('Jane Doe (2019).jpg')],
        ['P856', dv.string('https://janedoe.example/')],
        ['P2002', dv.string('janedoe')],
        ['P6634', dv.string('jane-doe-12345')],
        ['P496', dv.string('0000-0002-1825-0097')],
      ],
      sitelinks: { enwiki: 'Jane Doe (computer scientist)' },
    },
    // John Smith: current at Acme, formerly at the bakery (not imported); born in a month (precision 10).
    {
      id: WD.john,
      labels: { en: 'John Smith' },
      claims: [
        Q5,
        ['P21', dv.item(6581097)],
        ['P569', dv.time('+1980-05-00T00:00:00Z', 10)],
        ['P108', dv.item(900001), { qualifiers: [['P580', dv.time('+2018-00-00T00:00:00Z', 9)]] }],
        ['P108', dv.item(900010), { qualifiers: [['P582', dv.time('+2017-00-00T00:00:00Z', 9)]] }],
        ['P27', dv.item(30)],
        // An occupation whose item is not in the dump: no label, no title.
        ['P106', dv.item(999998)],
      ],
    },
    // A deprecated birth date beside a normal one.
    {
      id: WD.disputedBirth,
      labels: { en: 'Alma Disputed' },
      claims: [
        Q5,
        ['P569', dv.time('+1900-01-01T00:00:00Z', 11), { rank: 'deprecated' }],
        ['P569', dv.time('+1901-02-03T00:00:00Z', 11)],
      ],
    },
    // A preferred birth year beside a normal, more precise date: preferred wins.
    {
      id: WD.preferredBirth,
      labels: { en: 'Pat Preferred' },
      claims: [
        Q5,
        ['P569', dv.time('+1954-12-31T00:00:00Z', 11)],
        ['P569', dv.time('+1955-00-00T00:00:00Z', 9), { rank: 'preferred' }],
        ['P21', dv.item(48270)],
      ],
    },
    // BC dates; an employer (the Academy) founded BC.
    {
      id: WD.philosopher,
      labels: { en: 'Aristokles of Athens' },
      claims: [
        Q5,
        ['P569', dv.time('-0384-00-00T00:00:00Z', 9, 'Q1985786')],
        ['P570', dv.time('-0322-00-00T00:00:00Z', 9, 'Q1985786')],
        ['P106', dv.item(4964182)],
        ['P108', dv.item(900009)],
        ['P27', dv.item(41)],
      ],
    },
    // No English label: French label, French aliases and description.
    {
      id: WD.jean,
      labels: { fr: 'Jean Dupont' },
      descriptions: { fr: 'ingénieur français' },
      aliases: { fr: ['J. Dupont'] },
      claims: [Q5, ['P27', dv.item(142)], ['P551', dv.item(90)], ['P108', dv.item(900003)]],
    },
    // Only mul and zh labels.
    {
      id: WD.liWei,
      labels: { zh: '李伟', mul: 'Li Wei' },
      claims: [Q5, ['P27', dv.item(148)], ['P108', dv.item(900004)]],
    },
    // Human and fictional human: Q5 makes it a Person.
    {
      id: WD.twoClasses,
      labels: { en: 'Maxine Twofold' },
      claims: [Q5, ['P31', dv.item(15632617)], ['P108', dv.item(900001)]],
    },
    // novalue employer, somevalue birth date, unknown end of an employment (somevalue P582).
    {
      id: WD.unknowns,
      labels: { en: 'Una Known' },
      claims: [
        Q5,
        ['P108', 'novalue'],
        ['P569', 'somevalue'],
        ['P108', dv.item(900002), { qualifiers: [['P582', 'somevalue']] }],
        ['P27', 'novalue'],
      ],
    },
    // Died: an employment without an end is not current.
    {
      id: WD.dead,
      labels: { en: 'Desmond Late' },
      claims: [
        Q5,
        ['P569', dv.time('+1920-07-04T00:00:00Z', 11)],
        ['P570', dv.time('+1999-12-31T00:00:00Z', 11)],
        ['P108', dv.item(900001)],
      ],
    },
    // Labels in 70 languages: allNames is capped.
    {
      id: WD.polyglot,
      labels: Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`x${i}`, `Poly Glot ${i}`])),
      claims: [Q5],
    },
    // A fictional human only: not selected.
    { id: WD.fictional, labels: { en: 'Sherlock Example' }, claims: [['P31', dv.item(15632617)]] },
  ];
}

const FIRST = [
  'Anna',
  'Ben',
  'Carla',
  'David',
  'Elena',
  'Farid',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Kira',
  'Luca',
];
const LAST = [
  'Berg',
  'Costa',
  'Dietrich',
  'Eklund',
  'Fischer',
  'Garcia',
  'Haas',
  'Ivanova',
  'Jensen',
  'Kowalski',
];
const COMPANY = [
  'Northwind',
  'Globex',
  'Initech',
  'Umbrella',
  'Vandelay',
  'Wonka',
  'Stark',
  'Tyrell',
  'Cyberdyne',
];

/** The fixture dump: hand-written entities, filler, and malformed lines among them. */
export function fixtureDump(): FixtureDump {
  const random = new Seeded(29);
  const lines: string[] = [];
  for (const spec of handWritten()) {
    const json = entity(spec);
    if (spec.id === WD.institute) {
      // Another key order: page fields first, as the API writes them.
      const { pageid, ns, title, lastrevid, modified, ...rest } = json;
      lines.push(JSON.stringify({ pageid, ns, title, lastrevid, modified, ...rest }));
    } else {
      lines.push(JSON.stringify(entity(spec)));
    }
  }
  // A property: not an item, skipped.
  lines.push(
    JSON.stringify({
      type: 'property',
      datatype: 'wikibase-item',
      id: 'P108',
      labels: { en: { language: 'en', value: 'employer' } },
      descriptions: {},
      aliases: {},
      claims: {},
    }),
  );
  // Filler: companies with websites, their staff, and items that are not selected.
  const staff: { id: string; name: string; employer: string; employerName: string; employerHost: string }[] =
    [];
  const companies: { id: string; name: string; host: string }[] = [];
  for (let i = 0; i < 40; i++) {
    const name = `${COMPANY[i % COMPANY.length]} ${['Systems', 'Labs', 'Holdings', 'Analytics', 'Foods'][i % 5]} ${i}`;
    const host = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example`;
    const id = `Q${910000 + i}`;
    companies.push({ id, name, host });
    lines.push(
      JSON.stringify(
        entity({
          id,
          labels: { en: name },
          claims: [
            ['P31', dv.item(random.pick([4830453, 783794, 891723, 6881511]))],
            ['P856', dv.string(`https://www.${host}/`)],
            ['P17', dv.item(random.pick([30, 183, 142]))],
            ['P571', dv.time(`+${random.int(1950, 2015)}-00-00T00:00:00Z`, 9)],
          ],
        }),
      ),
    );
  }
  for (let i = 0; i < 160; i++) {
    // People 120 apart share a name (12 first × 10 last names), never an employer.
    const company = companies[(i + Math.floor(i / 120)) % companies.length];
    const name = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
    const id = `Q${920000 + i}`;
    staff.push({ id, name, employer: company.id, employerName: company.name, employerHost: company.host });
    lines.push(
      JSON.stringify(
        entity({
          id,
          labels: { en: name },
          claims: [
            Q5,
            ['P21', dv.item(i % 2 === 0 ? 6581072 : 6581097)],
            [
              'P569',
              dv.time(`+${random.int(1950, 2000)}-0${random.int(1, 9)}-1${random.int(0, 9)}T00:00:00Z`, 11),
            ],
            [
              'P108',
              dv.item(Number(company.id.slice(1))),
              { qualifiers: [['P580', dv.time('+2015-00-00T00:00:00Z', 9)]] },
            ],
          ],
        }),
      ),
    );
  }
  for (let i = 0; i < 60; i++) {
    lines.push(
      JSON.stringify(
        entity({
          id: `Q${930000 + i}`,
          labels: { en: `On the theory of things, part ${i}` },
          claims: [
            ['P31', dv.item(13442814)],
            ['P1476', dv.text(`On the theory of things, part ${i}`, 'en')],
            ['P2093', dv.string(`${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}`)],
          ],
        }),
      ),
    );
  }
  // Malformed lines, at known places.
  const malformed: { line: number; reason: RegExp }[] = [];
  const insert = (at: number, text: string, reason: RegExp) => {
    lines.splice(at, 0, text);
    malformed.push({ line: at + 2, reason });
  };
  const broken = JSON.stringify(entity({ id: 'Q990001', labels: { en: 'Trunc Ated' }, claims: [Q5] }));
  insert(30, broken.slice(0, broken.length - 40), /not a JSON object/);
  insert(60, 'this is not JSON at all', /not a JSON object/);
  // Looks selected (its P31 is intact) but a label has an invalid escape: rejected by the parser.
  insert(
    90,
    JSON.stringify(entity({ id: 'Q990002', labels: { en: 'Bad Escape' }, claims: [Q5] })).replace(
      'Bad Escape',
      'Bad \\x Escape',
    ),
    /invalid JSON/,
  );
  // A selected line whose id is not an item's.
  insert(
    120,
    JSON.stringify({ ...entity({ id: 'Q990003', labels: { en: 'No Item' }, claims: [Q5] }), id: 'L990003' }),
    /not a Wikidata item id/,
  );
  malformed.sort((a, b) => a.line - b.line);
  return { text: dumpText(lines), entityLines: lines.length, malformed, staff };
}
