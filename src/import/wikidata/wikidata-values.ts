/**
 * Wikidata values in the knowledge graph's forms: dates, quantities, web addresses, Commons files.
 * Pure functions; each returns `undefined` for a value it cannot read (the fact is then skipped).
 */
import type { DateFact } from '../../kg/index.ts';
import { normalizeDomain } from '../../kg/index.ts';
import type { DataValue, QuantityValue, TimeValue } from './wikidata-json.ts';

/** The numeric part of an item id (`Q42` → 42); undefined for anything else (`P31`, `L1`, `Q0`). */
export function itemNumber(id: unknown): number | undefined {
  if (typeof id !== 'string' || id.length < 2 || id.charCodeAt(0) !== 0x51 /* Q */) return undefined;
  let n = 0;
  for (let i = 1; i < id.length; i++) {
    const digit = id.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    n = n * 10 + digit;
  }
  return n > 0 && Number.isSafeInteger(n) ? n : undefined;
}

/** The item a value names (`Q42`), when it is an item. */
export function itemOf(value: DataValue | undefined): number | undefined {
  if (value?.type !== 'wikibase-entityid') return undefined;
  const entity = value.value;
  if (entity?.['entity-type'] !== 'item') return undefined;
  return itemNumber(entity.id);
}

const TIME = /^([+-])(\d{1,16})-(\d{2})-(\d{2})T/;

/** Wikidata precisions to the graph's: 9 year → 1, 10 month → 2, 11 day (and finer) → 3. */
function graphPrecision(precision: number): number | undefined {
  if (precision >= 11) return 3;
  if (precision === 10) return 2;
  if (precision === 9) return 1;
  return undefined;
}

/**
 * A time value as a date fact: `{str: "d1952-03-11", precision: 3}`. Years keep Wikidata's
 * numbering, which is that of XSD 1.0: 44 BC is `d-0044` (there is no year 0). Precisions coarser
 * than a year (decade, century, …) state no date the graph can hold: undefined. Month or day `00`
 * (an unknown part) lowers the precision. The calendar is kept as stated (a Julian date is not
 * converted).
 */
export function dateFactOf(value: TimeValue | undefined): DateFact | undefined {
  if (value === undefined || typeof value.time !== 'string' || typeof value.precision !== 'number') {
    return undefined;
  }
  let precision = graphPrecision(value.precision);
  const match = TIME.exec(value.time);
  if (precision === undefined || match === null) return undefined;
  const year = match[2].replace(/^0+(?=\d{4})/, '').padStart(4, '0');
  if (/^0+$/.test(year)) return undefined;
  const month = match[3];
  const day = match[4];
  if (month === '00' || Number(month) > 12) precision = 1;
  else if (precision === 3 && (day === '00' || Number(day) > 31)) precision = 2;
  const sign = match[1] === '-' ? '-' : '';
  const str =
    precision === 1
      ? `d${sign}${year}`
      : precision === 2
        ? `d${sign}${year}-${month}`
        : `d${sign}${year}-${month}-${day}`;
  return { str, precision };
}

/** The time of a data value, when it is one. */
export function timeOf(value: DataValue | undefined): TimeValue | undefined {
  return value?.type === 'time' ? value.value : undefined;
}

/**
 * The amount of a quantity (`+135301` → 135301) when it is a finite number; a unit other than
 * none (`1`) is accepted only when `unitless` is false.
 */
export function amountOf(value: DataValue | undefined, unitless = true): number | undefined {
  if (value?.type !== 'quantity') return undefined;
  const quantity: QuantityValue = value.value;
  if (unitless && quantity.unit !== '1') return undefined;
  const amount = Number(quantity.amount);
  return Number.isFinite(amount) ? amount : undefined;
}

/** The text of a string or monolingual-text value. */
export function textOf(value: DataValue | undefined): string | undefined {
  if (value?.type === 'string')
    return typeof value.value === 'string' ? value.value.trim() || undefined : undefined;
  if (value?.type === 'monolingualtext') {
    const text = value.value?.text;
    return typeof text === 'string' ? text.trim() || undefined : undefined;
  }
  return undefined;
}

/** A web address in the graph's homepage form: the host, lowercase, without `www.`. */
export function hostOf(url: string): string | undefined {
  return normalizeDomain(url)?.host;
}

/**
 * The address of a Wikimedia Commons file (`P18` image, `P154` logo): its `Special:FilePath`
 * URL, which redirects to the file itself. Spaces become underscores, as Commons names files.
 */
export function commonsFileUrl(fileName: string): string {
  const name = fileName.trim().replace(/ /g, '_');
  return `https://commons.wikimedia.org/wiki/Special:FilePath/${encodeURIComponent(name)}`;
}

/** A latitude/longitude pair on Earth (`Q2`), when the value is one. */
export function coordinatesOf(
  value: DataValue | undefined,
): { latitude: number; longitude: number } | undefined {
  if (value?.type !== 'globecoordinate') return undefined;
  const { latitude, longitude, globe } = value.value;
  if (typeof globe === 'string' && !globe.endsWith('/Q2')) return undefined;
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return undefined;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined;
  return { latitude, longitude };
}
