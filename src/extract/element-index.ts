import type { AnyNode, Document, Element } from 'domhandler';
import { DomHandler, isTag } from 'domhandler';
import { removeElement } from 'domutils';

/**
 * Every element of a parsed document in document order, and the elements of each tag: the
 * passes that look at the whole page (the base URL, structured data, each rule and prefilter
 * of every rule set, the extractors' searches) test one flat array instead of walking the
 * tree again each. A page parsed by `parseHtml` has its list recorded while it is parsed.
 *
 * The index is kept per document and trusts that the document changes only through
 * `removeElements` (the rule engine's prefilters are the only code that mutates a page).
 */
export class ElementIndex {
  /** Elements in document order; the document node itself is not one. */
  readonly elements: readonly Element[];
  #byTag: Map<string, Element[]> | undefined;

  /** `byTag`, when given, must list `elements` by tag name, each list in document order. */
  constructor(elements: readonly Element[], byTag?: Map<string, Element[]>) {
    this.elements = elements;
    this.#byTag = byTag;
  }

  /** Elements with tag `name` (lowercase), in document order. */
  withTag(name: string): readonly Element[] {
    this.#byTag ??= Map.groupBy(this.elements, (el) => el.name);
    return this.#byTag.get(name) ?? [];
  }

  /**
   * The index of the same document once `roots` and their subtrees are gone from it (a root
   * may lie inside another). A subtree is a contiguous run of the document-order list.
   */
  without(roots: readonly Element[]): ElementIndex {
    const elements = this.elements.slice();
    const removedByTag = new Map<string, Set<Element>>();
    for (const root of roots) {
      const start = elements.indexOf(root);
      if (start < 0) continue; // removed with an ancestor already
      for (const el of elements.splice(start, 1 + descendantElements(root).length)) {
        const removed = removedByTag.get(el.name);
        if (removed) removed.add(el);
        else removedByTag.set(el.name, new Set([el]));
      }
    }
    let byTag: Map<string, Element[]> | undefined;
    if (this.#byTag) {
      // Only the lists of the removed elements' tags change; the others are shared.
      byTag = new Map(this.#byTag);
      for (const [name, removed] of removedByTag) {
        const list = byTag.get(name);
        if (list)
          byTag.set(
            name,
            list.filter((el) => !removed.has(el)),
          );
      }
    }
    return new ElementIndex(elements, byTag);
  }
}

/**
 * Where a document keeps its index: a property of the document object itself. Not a WeakMap
 * keyed by document: its entries (whose values reach back to their keys through `parent`) kept
 * every young document alive through minor collections, which then took 40–100 ms instead of
 * under 1 ms (measured with --trace-gc while parsing the extract bench's pages).
 */
const INDEX = Symbol('elementIndex');
type IndexedDocument = Document & { [INDEX]?: ElementIndex };

/** The element index of `document`: recorded at parse time, else built by one walk and kept. */
export function elementIndex(document: Document): ElementIndex {
  const indexed = document as IndexedDocument;
  indexed[INDEX] ??= new ElementIndex(descendantElements(document));
  return indexed[INDEX];
}

/**
 * Removes `elements` with their subtrees from `document` and from its index. Elements already
 * detached (descendants of an element removed before them) are fine.
 */
export function removeElements(document: Document, elements: readonly Element[]): void {
  if (elements.length === 0) return;
  const indexed = document as IndexedDocument;
  // Before detaching: a subtree is measured with the matched elements still inside it.
  if (indexed[INDEX]) indexed[INDEX] = indexed[INDEX].without(elements);
  for (const el of elements) removeElement(el);
}

/** Depth-first, document order: the elements below `root`. */
function descendantElements(root: AnyNode): Element[] {
  const found: Element[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node) && node !== root) found.push(node);
    if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  return found;
}

/**
 * Deepest element nesting a parsed page keeps (Blink's `kMaximumHTMLParserDOMTreeDepth`): an
 * element opened below it becomes a sibling of the deepest open element instead of its child,
 * as in Chromium. Every walk of a page (text, content scoring, serialisation, selectors) is then
 * at most this deep, so 10,000 nested `<div>`s cannot overflow a stack (issue 28).
 */
export const MAX_DOM_DEPTH = 512;

/**
 * A DOM builder that lists elements (all of them, and by tag) as they open: the order in which
 * the parser opens elements is document order (htmlparser2 never moves a node once added), so
 * the index of a parsed page costs two array pushes per element instead of walks. It also caps
 * the tree's depth at `MAX_DOM_DEPTH`.
 */
export class IndexingDomHandler extends DomHandler {
  readonly #elements: Element[] = [];
  readonly #byTag = new Map<string, Element[]>();
  /**
   * One entry per element the parser has open, innermost last: whether it is still on the
   * DOM's open-element stack (false once it was closed early to keep the depth capped; the
   * parser's own close of it is then ignored).
   */
  readonly #open: boolean[] = [];

  override onopentag(name: string, attribs: { [key: string]: string }): void {
    // tagStack holds the document too: its length is the depth of the next element.
    if (this.tagStack.length > MAX_DOM_DEPTH) {
      super.onclosetag();
      for (let i = this.#open.length - 1; i >= 0; i--) {
        if (this.#open[i]) {
          this.#open[i] = false;
          break;
        }
      }
    }
    super.onopentag(name, attribs);
    this.#open.push(true);
    const element = this.tagStack[this.tagStack.length - 1] as Element;
    this.#elements.push(element);
    const sameTag = this.#byTag.get(element.name);
    if (sameTag) sameTag.push(element);
    else this.#byTag.set(element.name, [element]);
  }

  override onclosetag(): void {
    if (this.#open.pop() !== false) super.onclosetag();
  }

  /** The parsed document, with its index kept for `elementIndex`. */
  document(): Document {
    (this.root as IndexedDocument)[INDEX] = new ElementIndex(this.#elements, this.#byTag);
    return this.root;
  }
}
