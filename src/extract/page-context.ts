import { type ContentBlock, findContentBlock } from './content-block.ts';
import { type HtmlPage, parseHtml } from './html-document.ts';
import type { TypeFamily } from './schema-types.ts';
import {
  hasType,
  readStructuredData,
  type SchemaNode,
  type StructuredData,
  typesOfValue,
} from './structured-data.ts';

/**
 * One page being extracted, with the analyses extractors share computed once, on first use:
 * structured data (JSON-LD, microdata, meta) and the main content block.
 */
export class PageContext {
  readonly page: HtmlPage;
  #data: StructuredData | undefined;
  #content: ContentBlock | undefined;

  constructor(page: HtmlPage) {
    this.page = page;
  }

  /** Parses `html` as the page at `url`. */
  static fromHtml(html: string, url: string): PageContext {
    return new PageContext(parseHtml(html, url));
  }

  /** The URL relative references resolve against. */
  get baseUrl(): string {
    return this.page.baseUrl;
  }

  get data(): StructuredData {
    this.#data ??= readStructuredData(this.page);
    return this.#data;
  }

  /** The main content block (computed once). */
  content(): ContentBlock {
    this.#content ??= findContentBlock(this.page);
    return this.#content;
  }

  /**
   * The node that best represents the page among nodes of `types`: a node that is some page's
   * `mainEntity` first, then top-level nodes, then the one with most properties.
   * `undefined` when the page declares no such node.
   */
  mainNode(types: TypeFamily): SchemaNode | undefined {
    const candidates = this.data.nodes.filter((node) => hasType(node, types));
    if (candidates.length === 0) return undefined;
    const mainEntities = new Set<unknown>();
    for (const node of this.data.nodes) {
      const main = node.properties.mainEntity ?? node.properties.mainEntityOfPage;
      if (main && typeof main === 'object') mainEntities.add(main);
    }
    const rank = (node: SchemaNode): number => {
      let score = Object.keys(node.properties).length;
      if (node.topLevel) score += 100;
      if ([...mainEntities].some((main) => typesOfValue(main).some((t) => node['@type'].includes(t))))
        score += 50;
      return score;
    };
    return candidates.reduce((best, node) => (rank(node) > rank(best) ? node : best));
  }
}
