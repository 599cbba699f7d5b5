/**
 * The shape of a Wikidata entity as its JSON dumps write it (one entity per line of
 * `latest-all.json`): the Wikibase JSON format. Only what the import reads is typed; every field
 * may be missing or malformed in a given line, so readers check before they trust.
 */

/** A term: a label or description in one language. */
export interface WikidataTerm {
  readonly language: string;
  readonly value: string;
}

/** An item id as a statement value. */
export interface EntityIdValue {
  readonly 'entity-type': string;
  readonly 'numeric-id'?: number;
  readonly id: string;
}

/** A point in time: `+1952-03-11T00:00:00Z`, precision 9 year, 10 month, 11 day (coarser: 0–8). */
export interface TimeValue {
  readonly time: string;
  readonly timezone: number;
  readonly before: number;
  readonly after: number;
  readonly precision: number;
  readonly calendarmodel: string;
}

/** A quantity: the amount is a decimal string with a sign (`+135301`). */
export interface QuantityValue {
  readonly amount: string;
  readonly unit: string;
  readonly upperBound?: string;
  readonly lowerBound?: string;
}

export interface MonolingualTextValue {
  readonly text: string;
  readonly language: string;
}

export interface GlobeCoordinateValue {
  readonly latitude: number;
  readonly longitude: number;
  readonly altitude: number | null;
  readonly precision: number | null;
  readonly globe: string;
}

export type DataValue =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'wikibase-entityid'; readonly value: EntityIdValue }
  | { readonly type: 'time'; readonly value: TimeValue }
  | { readonly type: 'quantity'; readonly value: QuantityValue }
  | { readonly type: 'monolingualtext'; readonly value: MonolingualTextValue }
  | { readonly type: 'globecoordinate'; readonly value: GlobeCoordinateValue };

/** A snak: a property and a value, or the statement that there is no value / an unknown one. */
export interface Snak {
  readonly snaktype: 'value' | 'novalue' | 'somevalue';
  readonly property: string;
  readonly hash?: string;
  readonly datavalue?: DataValue;
  readonly datatype?: string;
}

export type Rank = 'preferred' | 'normal' | 'deprecated';

export interface Reference {
  readonly hash: string;
  readonly snaks: Readonly<Record<string, readonly Snak[]>>;
  readonly 'snaks-order': readonly string[];
}

export interface Statement {
  readonly mainsnak: Snak;
  readonly type: 'statement';
  readonly qualifiers?: Readonly<Record<string, readonly Snak[]>>;
  readonly 'qualifiers-order'?: readonly string[];
  readonly id: string;
  readonly rank: Rank;
  readonly references?: readonly Reference[];
}

export interface Sitelink {
  readonly site: string;
  readonly title: string;
  readonly badges: readonly string[];
}

/** One line of the dump. */
export interface WikidataEntity {
  readonly type: string;
  readonly id: string;
  readonly labels?: Readonly<Record<string, WikidataTerm>>;
  readonly descriptions?: Readonly<Record<string, WikidataTerm>>;
  readonly aliases?: Readonly<Record<string, readonly WikidataTerm[]>>;
  readonly claims?: Readonly<Record<string, readonly Statement[]>>;
  readonly sitelinks?: Readonly<Record<string, Sitelink>>;
}

/** The page of an entity on wikidata.org: the origin of every fact imported from it. */
export function wikidataPage(id: string): string {
  return `https://www.wikidata.org/wiki/${id}`;
}
