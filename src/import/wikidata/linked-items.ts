/**
 * Linked items: a statement's value that is another item (an employer, a school, a country, an
 * occupation) is known only by its id when the entity is read, and its label may come later in
 * the dump. The first pass writes a placeholder in its place, `{"$wd":"Q95","k":"o"}`; the label
 * pass learns the labels of every item referred to (and which of them are imported); the import
 * pass replaces each placeholder in the statement's JSON text by what it resolves to.
 *
 * Kinds of placeholder:
 * - `o` an entity (employer, school, parent, subsidiary, founder, CEO): `{"name":…,"id":"Q95",
 *   "type":"Organization"}` when the item is imported (its id is the graph's id), else
 *   `{"name":…,"wikidataId":"Q95"}`;
 * - `p` a place (country, city): `{"name":…}`, or `null` (dropped) when it has no label;
 * - `l` a label (occupation as a job title, industry, gender, given and family names): the label
 *   as a string, or `null` (dropped) when it has none.
 */
import type { EntityType } from '../../kg/index.ts';

export type LinkKind = 'o' | 'p' | 'l';

/** The placeholder of item `n` (JSON.stringify writes it exactly as `PLACEHOLDER` reads it). */
export function placeholder(n: number, kind: LinkKind): { $wd: string; k: LinkKind } {
  return { $wd: `Q${n}`, k: kind };
}

// A placeholder in JSON text. No string value can contain it: inside strings JSON escapes `"`.
const PLACEHOLDER = /\{"\$wd":"Q(\d+)","k":"([opl])"\}/g;

/** Whether a statement's JSON text holds placeholders. */
export function hasPlaceholders(json: string): boolean {
  return json.includes('{"$wd":"Q');
}

/** A set of item numbers: one bit per number, grown as needed (Wikidata's ids reach ~1.4e8: 17 MiB). */
export class ItemSet {
  #bits = new Uint8Array(1 << 16);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(n: number): void {
    const byte = n >>> 3;
    if (byte >= this.#bits.length) {
      let length = this.#bits.length;
      while (length <= byte) length *= 2;
      const grown = new Uint8Array(length);
      grown.set(this.#bits);
      this.#bits = grown;
    }
    const bit = 1 << (n & 7);
    if ((this.#bits[byte] & bit) === 0) {
      this.#bits[byte] |= bit;
      this.#size++;
    }
  }

  has(n: number): boolean {
    const byte = n >>> 3;
    return byte < this.#bits.length && (this.#bits[byte] & (1 << (n & 7))) !== 0;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bits.byteLength;
  }
}

/** What the label pass learnt about the items referred to. */
export class LinkedItems {
  /** Label of each item referred to that has one (in the preferred languages). */
  readonly labels = new Map<number, string>();
  readonly persons = new ItemSet();
  readonly organizations = new ItemSet();

  /** Records what an item referred to is: its label and, when it is imported, its type. */
  learn(n: number, label: string | undefined, type: EntityType | undefined): void {
    if (label !== undefined) this.labels.set(n, label);
    if (type === 'Person') this.persons.add(n);
    else if (type === 'Organization') this.organizations.add(n);
  }

  /** The JSON text a placeholder of item `n` and `kind` becomes. */
  resolve(n: number, kind: LinkKind): string {
    const label = this.labels.get(n);
    if (kind === 'l') return label === undefined ? 'null' : JSON.stringify(label);
    if (kind === 'p') return label === undefined ? 'null' : `{"name":${JSON.stringify(label)}}`;
    const name = label === undefined ? '' : `"name":${JSON.stringify(label)},`;
    const type = this.persons.has(n) ? 'Person' : this.organizations.has(n) ? 'Organization' : undefined;
    return type === undefined ? `{${name}"wikidataId":"Q${n}"}` : `{${name}"id":"Q${n}","type":"${type}"}`;
  }

  /** A statement's JSON text with every placeholder resolved. */
  substitute(json: string): string {
    if (!hasPlaceholders(json)) return json;
    return json.replace(PLACEHOLDER, (_match, digits: string, kind: LinkKind) =>
      this.resolve(Number(digits), kind),
    );
  }
}
