import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkJsonPathPatterns, createSafeJsonPathEnvironment } from './jsonpath-functions.ts';
import { REDOS_CORPUS } from './redos-corpus.ts';
import { compileUserPattern, PATTERN_LIMITS, UserPatternError } from './user-pattern.ts';

describe('compileUserPattern', () => {
  test('searches, matches whole texts and replaces with JavaScript replacement syntax', () => {
    const pattern = compileUserPattern('(\\w+)@(?<host>\\w+)');
    assert.equal(pattern.test('write to joe@example now'), true);
    assert.equal(pattern.matchesWhole('joe@example'), true);
    assert.equal(pattern.matchesWhole('joe@example!'), false);
    assert.equal(
      pattern.replaceAll('joe@ex, ann@foo', '$2:$1 [$&] $$ $<host>'),
      'ex:joe [joe@ex] $ ex, foo:ann [ann@foo] $ foo',
    );
  });

  test('understands the Java forms Custom API rules are written in', () => {
    assert.equal(compileUserPattern('(?i)^PRICE').test('price: 3'), true);
    assert.equal(compileUserPattern('(?s)a.b').test('a\nb'), true);
    assert.equal(compileUserPattern('a.b').test('a\nb'), false);
    assert.equal(compileUserPattern('\\Aabc\\z').test('abc'), true);
    assert.equal(compileUserPattern('abc\\Z').test('xabc'), true);
    assert.equal(compileUserPattern('caf\\u00e9').test('café'), true);
    assert.equal(compileUserPattern('\\p{Lu}\\p{Ll}+').test('Hélène'), true);
    assert.equal(compileUserPattern('\\/news\\/\\d{4}\\/').test('https://x.test/news/2024/a'), true);
    assert.equal(compileUserPattern('(?<=€)\\d+').replaceAll('€12 and $13', 'N'), '€N and $13');
    assert.equal(compileUserPattern('abc', { ignoreCase: true }).test('ABC'), true);
  });

  test('refuses what RE2 cannot run in linear time, naming the construct', () => {
    const cases: [string, RegExp][] = [
      ['a(?=b)', /lookahead/],
      ['a(?!b)', /lookahead/],
      ['(a)\\1', /backreference/],
      ['(?<x>a)\\k<x>', /backreference/],
      ['a++', /possessive/],
      ['(?>a)', /atomic group/],
      ['(?x)a b', /inline flag \(\?x\)/],
      ['[', /Invalid regular expression "\[": missing closing \]/],
      ['', /empty/],
      ['x'.repeat(PATTERN_LIMITS.maxLength + 1), /longer than 2000/],
      ['[a-z]{1000}'.repeat(6), /too large once compiled \(6002 instructions, at most 5000\)/],
    ];
    for (const [pattern, message] of cases) {
      assert.throws(
        () => compileUserPattern(pattern),
        (error: unknown) => error instanceof UserPatternError && message.test(error.message),
        pattern,
      );
    }
  });

  test('I-Regexp: `.` stops at line breaks, whole-text match is match()', () => {
    const dot = compileUserPattern('a.c', { dialect: 'iregexp' });
    assert.equal(dot.test('abc'), true);
    assert.equal(dot.test('a\nc'), false);
    assert.equal(dot.test('a\rc'), false);
    assert.equal(compileUserPattern('[.]', { dialect: 'iregexp' }).test('x'), false);
  });

  test('every pattern of the ReDoS corpus runs in linear time on 10 KB of its hostile input', () => {
    for (const { pattern, input } of REDOS_CORPUS) {
      const compiled = compileUserPattern(pattern);
      const long = input.repeat(Math.ceil(10_000 / input.length));
      const started = performance.now();
      compiled.test(long);
      compiled.replaceAll(long, 'x');
      // Backtracking takes seconds to years on these; generous bound for a loaded CI machine.
      const ms = performance.now() - started;
      assert.ok(ms < 2_000, `${pattern} took ${ms.toFixed(0)} ms`);
    }
  });
});

describe('createSafeJsonPathEnvironment', () => {
  const environment = createSafeJsonPathEnvironment();
  const names = [{ name: 'Acme Corp' }, { name: 'Beta GmbH' }, { name: 'acme labs' }];

  test('match() needs the whole value, search() any part, as RFC 9535 says', () => {
    const matched = environment.compile('$[?match(@.name, "Acme.*")]').query(names).values();
    assert.deepEqual(matched, [{ name: 'Acme Corp' }]);
    const found = environment.compile('$[?search(@.name, "(?i)acme")]').query(names).values();
    assert.deepEqual(found, [{ name: 'Acme Corp' }, { name: 'acme labs' }]);
  });

  test('a pattern that does not compile, or is not a string, matches nothing', () => {
    assert.deepEqual(environment.compile('$[?search(@.name, "(a")]').query(names).values(), []);
    assert.deepEqual(environment.compile('$[?search(@.name, "a(?=c)")]').query(names).values(), []);
    assert.deepEqual(environment.compile('$[?search(@.name, @.missing)]').query(names).values(), []);
  });

  test('the issue 28 filter answers at once on long values', () => {
    const values = Array.from({ length: 50 }, () => ({ name: 'abcdefghij'.repeat(100) }));
    const started = performance.now();
    const found = environment.compile('$[?search(@.name, "(.*[a-z]){10}Q")]').query(values).values();
    assert.deepEqual(found, []);
    assert.ok(performance.now() - started < 2_000);
  });
});

describe('checkJsonPathPatterns', () => {
  test('names the first literal pattern that cannot run, and passes the others', () => {
    assert.equal(checkJsonPathPatterns('$[?search(@.name, "(.*[a-z]){10}Q")]'), undefined);
    assert.equal(
      checkJsonPathPatterns("$.locations[?match(@['a,b'], 'x(y')]")?.startsWith(
        'match(): Invalid regular expression "x(y"',
      ),
      true,
    );
    assert.match(
      checkJsonPathPatterns('$[?@.a == 1 && search(@.b, "a(?=z)")]') ?? '',
      /^search\(\): .*lookahead/,
    );
    assert.equal(checkJsonPathPatterns('$[?match(@.a, @.b)]'), undefined);
  });
});
