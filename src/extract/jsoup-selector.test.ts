import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inlineText, parseHtml } from './html-document.ts';
import { compileSelector, SelectorError, subjectTag } from './jsoup-selector.ts';

const page = parseHtml(
  `<ul>
     <li class="first">Price: $10</li>
     <li data-id="7" data-kind="x">Second <b>Bold</b></li>
     <li title="Hello World">Third (3)</li>
     <li>  spaced   out  </li>
   </ul>
   <p>Own text <span>inner CHILD</span></p>
   <script>var token = "needle";</script>
   <a href="/p/123">product</a><a href="/q/abc">other</a>`,
  'https://example.com/',
);

function texts(selector: string): string[] {
  return compileSelector(selector)
    .selectAll(page.document)
    .map((el) => inlineText(el) || el.name);
}

describe('jsoup selector translation', () => {
  test('plain CSS passes through unchanged', () => {
    assert.equal(compileSelector('ul > li.first').css, 'ul > li.first');
    assert.deepEqual(texts('ul > li.first'), ['Price: $10']);
    assert.deepEqual(texts('li:nth-child(2) b'), ['Bold']);
  });

  test(':contains is case-insensitive over the element text, descendants included', () => {
    assert.deepEqual(texts('li:contains(BOLD)'), ['Second Bold']);
    assert.deepEqual(texts('p:contains(inner child)'), ['Own text inner CHILD']);
  });

  test(':containsOwn looks at the element’s own text only', () => {
    assert.deepEqual(texts('p:containsOwn(own text)'), ['Own text inner CHILD']);
    assert.deepEqual(texts('p:containsOwn(inner)'), []);
    assert.deepEqual(texts('li:containsOwn(second)'), ['Second Bold']);
  });

  test(':containsWholeText is case-sensitive and keeps whitespace; :containsData reads scripts', () => {
    assert.deepEqual(texts('li:containsWholeText(  spaced   out)'), ['spaced out']);
    assert.deepEqual(texts('li:containsWholeText(SPACED)'), []);
    assert.equal(compileSelector('script:containsData(needle)').selectAll(page.document).length, 1);
  });

  test(':matches and :matchesOwn search text with a regex; (?i) becomes a flag', () => {
    assert.deepEqual(texts('li:matches(\\(\\d\\))'), ['Third (3)']);
    assert.deepEqual(texts('li:matches((?i)^price)'), ['Price: $10']);
    assert.deepEqual(texts('li:matches(^price)'), []);
    assert.deepEqual(texts('p:matchesOwn(^Own text$)'), ['Own text inner CHILD']);
    assert.deepEqual(texts('p:matchesOwn(CHILD)'), []);
  });

  test(':eq, :lt and :gt use the 0-based element sibling index', () => {
    assert.deepEqual(texts('li:eq(1)'), ['Second Bold']);
    assert.deepEqual(texts('li:lt(2)'), ['Price: $10', 'Second Bold']);
    assert.deepEqual(texts('li:gt(1)'), ['Third (3)', 'spaced out']);
    assert.deepEqual(texts('li:lt(0)'), []);
  });

  test('[attr~=regex] is a regex match, not the CSS word match', () => {
    assert.deepEqual(texts('a[href~=/p/\\d+$]'), ['product']);
    assert.deepEqual(texts('a[href~="^/q/"]'), ['other']);
  });

  test('[^prefix] matches an attribute name prefix', () => {
    assert.deepEqual(texts('li[^data-]'), ['Second Bold']);
    assert.deepEqual(texts('[^data-k]'), ['Second Bold']);
    assert.deepEqual(texts('[^nope]'), []);
  });

  test('attribute values may be unquoted with spaces and compare case-insensitively', () => {
    assert.deepEqual(texts('li[title=hello world]'), ['Third (3)']);
    assert.deepEqual(texts('li[title^=HELLO]'), ['Third (3)']);
    assert.deepEqual(texts('li[title="Hello World" s]'), ['Third (3)']);
  });

  test('jsoup forms nest inside :not and :has', () => {
    assert.deepEqual(texts('li:not(:containsOwn(price)):lt(2)'), ['Second Bold']);
    assert.deepEqual(texts('li:has(b:containsOwn(bold))'), ['Second Bold']);
  });
});

describe('selector errors name the construct', () => {
  const cases: [string, RegExp][] = [
    ['li:matchText', /Unsupported jsoup construct ":matchText"/],
    ['li:frobnicate(1)', /Unsupported selector construct ":frobnicate"/],
    ['li:hover-ish', /Unsupported selector construct ":hover-ish"/],
    ['li:matches([unclosed)', /Invalid regular expression "\[unclosed".*:matches\(\)/],
    ['li:eq(-1)', /:eq\(\) needs a non-negative integer/],
    ['li:eq(x)', /:eq\(\) needs a non-negative integer/],
    ['div[', /Unbalanced "\["/],
    ['a >> b', /Invalid selector "a >> b"/],
    ['li:contains()', /needs a text argument/],
    ['a[href~=(]', /Invalid regular expression/],
    ['[^]', /Empty attribute prefix/],
    ['', /Selector is empty/],
  ];
  for (const [selector, expected] of cases) {
    test(JSON.stringify(selector), () => {
      assert.throws(
        () => compileSelector(selector),
        (error: unknown) => error instanceof SelectorError && expected.test(error.message),
      );
    });
  }
});

describe('regular expressions in selectors', () => {
  test('run on the linear-time engine: a ReDoS pattern answers at once', () => {
    const selector = compileSelector('p:matches(^(a|a)*$)');
    const page = parseHtml(`<p>${'a'.repeat(5000)}!</p><p>aaa</p>`, 'https://example.test/');
    const started = performance.now();
    assert.equal(selector.selectAll(page.document).length, 1);
    assert.ok(performance.now() - started < 1_000);
  });

  test('what the engine cannot run is a SelectorError naming it', () => {
    assert.throws(
      () => compileSelector('p:matches(a(?=b))'),
      (error: unknown) => error instanceof SelectorError && /lookahead.* in :matches\(\)/.test(error.message),
    );
    assert.throws(() => compileSelector('[href~=(x)\\1]'), /backreference/);
  });
});

describe('subjectTag', () => {
  test('finds the tag of the rightmost compound, outside brackets, parentheses and quotes', () => {
    assert.equal(subjectTag('p'), 'p');
    assert.equal(subjectTag('.story-body > P:nth-child(1)'), 'p');
    assert.equal(subjectTag('div.a  li.item[data-x="a b > c"]'), 'li');
    assert.equal(subjectTag('ul ~ a:not(.x y, z)'), 'a');
    assert.equal(subjectTag('h2:quarry-jsoup(0)'), 'h2');
    assert.equal(subjectTag('> h3'), 'h3');
  });

  test('gives up where a tag cannot be relied on', () => {
    assert.equal(subjectTag('h1, h2'), undefined);
    assert.equal(subjectTag('div .title'), undefined);
    assert.equal(subjectTag('div *'), undefined);
    assert.equal(subjectTag('svg|rect'), undefined);
    assert.equal(subjectTag('h\\31'), undefined);
    assert.equal(subjectTag('[data-id]'), undefined);
  });

  test('compiled selectors carry it', () => {
    assert.equal(compileSelector('ul.hours li:eq(1)').subjectTag, 'li');
    assert.equal(compileSelector('a[href~=/p/], b').subjectTag, undefined);
  });
});
