import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AnyNode, Element } from 'domhandler';
import { isTag } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { elementIndex, MAX_DOM_DEPTH, removeElements } from './element-index.ts';
import { findAllElements, findFirst, parseHtml, textOf } from './html-document.ts';
import { compileSelector } from './jsoup-selector.ts';

/** The elements of the tree as a walk finds them now (what the index must always agree with). */
function walked(node: AnyNode): Element[] {
  const found: Element[] = [];
  const visit = (current: AnyNode): void => {
    if (isTag(current) && current !== node) found.push(current);
    if ('children' in current) for (const child of current.children) visit(child);
  };
  visit(node);
  return found;
}

const HTML = `<!DOCTYPE html><html><head><title>T</title><script>var x = "<p>";</script></head>
<body><div class="a"><p>one<p>two <b>bold</b></div>
<ul><li>1</li> <li class="ad">2 <span>in ad</span></li> <li>3</li>
text <li>4</li></ul><table><tr><td>cell</table><template><p>in template</p></template>
<div class="ad"><i>x</i><div class="ad">nested <b>y</b></div><i>z</i></div><br></body></html>`;

describe('element index', () => {
  test('a parsed page lists every element in document order, and by tag', () => {
    const page = parseHtml(HTML, 'https://example.com/');
    const index = elementIndex(page.document);
    assert.deepEqual(index.elements, walked(page.document));
    assert.deepEqual(
      index.withTag('li'),
      walked(page.document).filter((el) => el.name === 'li'),
    );
    assert.deepEqual(index.withTag('nope'), []);
  });

  test('a document not parsed by parseHtml is indexed by a walk', () => {
    const document = parseDocument(HTML);
    assert.deepEqual(elementIndex(document).elements, walked(document));
  });

  test('removing elements removes them and their descendants from the index', () => {
    const page = parseHtml(HTML, 'https://example.com/');
    const index = elementIndex(page.document);
    index.withTag('div'); // the by-tag lists exist before the removal
    const ads = index.elements.filter((el) => el.attribs.class === 'ad');
    assert.equal(ads.length, 3); // the nested one is removed with its parent, then again
    removeElements(page.document, ads);
    const after = elementIndex(page.document);
    assert.deepEqual(after.elements, walked(page.document));
    assert.deepEqual(
      after.withTag('div'),
      walked(page.document).filter((el) => el.name === 'div'),
    );
    assert.equal(
      findFirst(page.document, (el) => el.name === 'span'),
      undefined,
    );
    assert.deepEqual(
      findAllElements(page.document, (el) => el.name === 'li').map((el) => el.children.length),
      [1, 1, 1],
    );
  });

  test(':eq, :lt and :gt count element siblings after a removal as before it', () => {
    const page = parseHtml(HTML, 'https://example.com/');
    removeElements(
      page.document,
      elementIndex(page.document).elements.filter((el) => el.attribs.class === 'ad'),
    );
    const texts = (selector: string) =>
      compileSelector(selector)
        .selectAll(page.document)
        .map((el) => (el.children[0] as { data?: string }).data);
    assert.deepEqual(texts('li:eq(1)'), ['3']);
    assert.deepEqual(texts('li:lt(2)'), ['1', '3']);
    assert.deepEqual(texts('li:gt(0)'), ['3', '4']);
    assert.deepEqual(texts('li:nth-child(3)'), ['4']);
  });
});

describe('depth cap', () => {
  test('10,000 nested elements keep all their text and no branch deeper than MAX_DOM_DEPTH', () => {
    const html = `<body>${'<div><span>x</span>'.repeat(10_000)}${'</div>'.repeat(10_000)}<p id="after">end</p></body>`;
    const page = parseHtml(html, 'https://example.test/');
    let deepest = 0;
    for (const el of elementIndex(page.document).elements) {
      let depth = 0;
      for (let node = el.parent; node; node = node.parent) depth++;
      deepest = Math.max(deepest, depth);
    }
    assert.ok(deepest <= MAX_DOM_DEPTH, `depth ${deepest}`);
    const text = textOf(page.document);
    assert.equal(text.split('x').length - 1, 10_000);
    assert.match(text, /end$/);
    assert.equal(elementIndex(page.document).withTag('div').length, 10_000);
    // Closing tags after the cap close what they should: <p> is not inside a div.
    const after = elementIndex(page.document).withTag('p')[0];
    assert.equal((after.parent as { name?: string }).name, 'body');
  });
});
