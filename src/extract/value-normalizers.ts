import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import type { DateFact, PhoneNumber } from '../kg/index.ts';

/**
 * Month names (and common abbreviations) in English, French, German, Spanish, Italian,
 * Portuguese and Dutch, accents folded, lowercase → month number.
 */
const MONTHS: ReadonlyMap<string, number> = (() => {
  const names: readonly string[][] = [
    [
      'january',
      'jan',
      'janvier',
      'janv',
      'januar',
      'jänner',
      'enero',
      'ene',
      'gennaio',
      'gen',
      'janeiro',
      'januari',
    ],
    ['february', 'feb', 'fevrier', 'fevr', 'fev', 'februar', 'febrero', 'febbraio', 'fevereiro', 'februari'],
    ['march', 'mar', 'mars', 'marz', 'maerz', 'marzo', 'marco', 'maart', 'mrt'],
    ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile'],
    ['may', 'mai', 'mayo', 'maggio', 'mag', 'maio', 'mei'],
    ['june', 'jun', 'juin', 'juni', 'junio', 'giugno', 'giu', 'junho'],
    ['july', 'jul', 'juillet', 'juil', 'juli', 'julio', 'luglio', 'lug', 'julho'],
    ['august', 'aug', 'aout', 'agosto', 'ago', 'augustus'],
    ['september', 'sep', 'sept', 'septembre', 'septiembre', 'settembre', 'set', 'setembro'],
    ['october', 'oct', 'octobre', 'oktober', 'okt', 'octubre', 'ottobre', 'ott', 'outubro', 'out'],
    ['november', 'nov', 'novembre', 'noviembre', 'novembro'],
    ['december', 'dec', 'decembre', 'dezember', 'dez', 'diciembre', 'dic', 'dicembre', 'dezembro'],
  ];
  const map = new Map<string, number>();
  names.forEach((list, month) => {
    for (const name of list) map.set(name, month + 1);
  });
  return map;
})();

function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/**
 * A date written with a month name in one of the languages of `MONTHS`: "12 mars 2024",
 * "12. März 2024", "12 de marzo de 2024", "1er avril 2024", "March 12th, 2024", "maart 2024".
 * Epoch ms (UTC midnight), or `undefined`.
 */
function parseWrittenDate(text: string): number | undefined {
  const folded = fold(text).replace(/(\d)(st|nd|rd|th|er|eme|e|o|º|ª)\b/g, '$1');
  const dayFirst = /\b(\d{1,2})\.?\s+(?:de\s+)?([a-z]{3,10})\.?,?\s+(?:de\s+)?(\d{4})\b/.exec(folded);
  const monthFirst = /\b([a-z]{3,10})\.?\s+(\d{1,2}),?\s+(\d{4})\b/.exec(folded);
  const candidates: [string, string, string][] = [];
  if (dayFirst) candidates.push([dayFirst[1], dayFirst[2], dayFirst[3]]);
  if (monthFirst) candidates.push([monthFirst[2], monthFirst[1], monthFirst[3]]);
  for (const [day, month, year] of candidates) {
    const m = MONTHS.get(month);
    const d = Number(day);
    if (m && d >= 1 && d <= 31) return Date.UTC(Number(year), m - 1, d);
  }
  return undefined;
}

/**
 * Parses a date as pages write it (ISO 8601 with or without time and offset, RFC 2822,
 * "2024/03/03", "03.03.2024" and "03/03/2024" read day first outside the US form "March 3,
 * 2024", and month names in English, French, German, Spanish, Italian, Portuguese and Dutch)
 * to epoch milliseconds. Dates before 1800 or more than a year in the future are treated as
 * parse errors. `undefined` when unparseable.
 */
export function parseDate(raw: string | undefined): number | undefined {
  const text = raw?.trim().replace(/\s+/g, ' ');
  if (!text) return undefined;
  let ms = /^\d{4}-\d{2}-\d{2}/.test(text) || /^[A-Za-z]{3}, \d/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    const ymd = /\b(\d{4})[./-](\d{1,2})[./-](\d{1,2})\b/.exec(text);
    const dmy = /\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b/.exec(text);
    if (ymd) ms = Date.UTC(Number(ymd[1]), Number(ymd[2]) - 1, Number(ymd[3]));
    else ms = parseWrittenDate(text) ?? Number.NaN;
    if (Number.isNaN(ms) && dmy && Number(dmy[2]) <= 12) {
      ms = Date.UTC(Number(dmy[3]), Number(dmy[2]) - 1, Number(dmy[1]));
    }
    if (Number.isNaN(ms)) {
      // Strip weekday names and ordinal suffixes: "Tuesday, March 3rd, 2024".
      const cleaned = text.replace(/^[A-Za-z]+day,?\s*/i, '').replace(/(\d)(st|nd|rd|th)\b/g, '$1');
      ms = Date.parse(cleaned);
    }
  }
  if (Number.isNaN(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1800 || ms > Date.now() + 366 * 86_400_000) return undefined;
  return ms;
}

/** A date in the reference extraction API's form: RFC 7231 IMF-fixdate ("Sun, 03 Mar 2024 00:00:00 GMT"). */
export function formatHttpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/**
 * A date as the knowledge graph writes it (`kg/entity.ts` DateFact): `d2024-03-03` with
 * precision 3, `d2024-03-XX` precision 2, `d2024-XX-XX` precision 1, from "2024-03-03",
 * "2024-03", "2024" or any form `parseDate` understands.
 */
export function toDateFact(raw: string | undefined): DateFact | undefined {
  const text = raw?.trim();
  if (!text) return undefined;
  const year = /^(\d{4})$/.exec(text);
  if (year) return { str: `d${year[1]}-XX-XX`, precision: 1, timestamp: Date.UTC(Number(year[1]), 0, 1) };
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (month) {
    return {
      str: `d${month[1]}-${month[2]}-XX`,
      precision: 2,
      timestamp: Date.UTC(Number(month[1]), Number(month[2]) - 1, 1),
    };
  }
  const ms = parseDate(text);
  if (ms === undefined) return undefined;
  const iso = new Date(ms).toISOString().slice(0, 10);
  return {
    str: `d${iso}`,
    precision: 3,
    timestamp: Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))),
  };
}

/** Currency symbols and the ISO 4217 code they most often mean on the web. */
const CURRENCY_SYMBOLS: readonly [string, string][] = [
  ['US$', 'USD'],
  ['C$', 'CAD'],
  ['CA$', 'CAD'],
  ['A$', 'AUD'],
  ['AU$', 'AUD'],
  ['NZ$', 'NZD'],
  ['HK$', 'HKD'],
  ['S$', 'SGD'],
  ['R$', 'BRL'],
  ['MX$', 'MXN'],
  ['$', 'USD'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
  ['₩', 'KRW'],
  ['₽', 'RUB'],
  ['₺', 'TRY'],
  ['₪', 'ILS'],
  ['₫', 'VND'],
  ['฿', 'THB'],
  ['₱', 'PHP'],
  ['zł', 'PLN'],
  ['Kč', 'CZK'],
  ['Fr.', 'CHF'],
  ['kr', 'SEK'],
];
const ISO_CURRENCIES = new Set(
  (
    'USD EUR GBP JPY CNY INR CAD AUD NZD CHF SEK NOK DKK PLN CZK HUF RON BGN RUB TRY ILS ZAR BRL MXN ARS ' +
    'CLP COP PEN KRW HKD SGD TWD THB VND PHP IDR MYR AED SAR QAR KWD EGP NGN KES UAH ISK'
  ).split(' '),
);

/** A price found in text. */
export interface Price {
  /** The numeric amount, e.g. 1299.99. */
  readonly amount: number;
  /** The price as written, trimmed, e.g. "$1,299.99". */
  readonly text: string;
  /** The currency symbol as written, when there was one. */
  readonly symbol?: string;
  /** ISO 4217 code, from an explicit code or the symbol. */
  readonly currency?: string;
}

/** The ISO 4217 code for a symbol or code (`€` → `EUR`, `usd` → `USD`), when known. */
export function currencyCode(symbolOrCode: string | undefined): string | undefined {
  const value = symbolOrCode?.trim();
  if (!value) return undefined;
  if (ISO_CURRENCIES.has(value.toUpperCase())) return value.toUpperCase();
  return CURRENCY_SYMBOLS.find(([symbol]) => symbol === value)?.[1];
}

function parseAmount(digits: string): number | undefined {
  let number = digits.replace(/[\s'\u00a0\u202f]/g, '');
  const lastDot = number.lastIndexOf('.');
  const lastComma = number.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    // Both separators: the rightmost is the decimal one ("1.299,99" / "1,299.99").
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    number = number.split(thousands).join('').replace(decimal, '.');
  } else if (lastComma >= 0) {
    // "12,50" is a decimal comma; "1,299" and "1,299,000" group thousands.
    const tail = number.length - lastComma - 1;
    number = tail === 3 ? number.replace(/,/g, '') : number.replace(/,(?=[^,]*$)/, '.').replace(/,/g, '');
  } else if (lastDot >= 0 && number.indexOf('.') !== lastDot) {
    // Several dots can only group thousands ("1.299.000").
    number = number.replace(/\./g, '');
  }
  const amount = Number(number);
  return Number.isFinite(amount) ? amount : undefined;
}

/**
 * Finds the first price in `text` ("$1,299.99", "1.299,99 €", "EUR 12.50", "12"), with its
 * currency when a symbol or ISO code is next to it. `undefined` when there is no number.
 */
export function parsePrice(text: string | undefined, currencyHint?: string): Price | undefined {
  const trimmed = text?.replace(/\s+/g, ' ').trim();
  if (!trimmed) return undefined;
  const match = /(\d[\d.,'\u00a0\u202f ]*\d|\d)/.exec(trimmed);
  if (!match) return undefined;
  const amount = parseAmount(match[1].trim());
  if (amount === undefined) return undefined;
  const before = trimmed.slice(0, match.index).trim();
  const after = trimmed.slice(match.index + match[1].length).trim();
  const digits = match[1].trim();
  let symbol: string | undefined;
  let currency: string | undefined;
  let written = digits;
  const code = /\b([A-Z]{3})\s*$/.exec(before) ?? /^([A-Z]{3})\b/.exec(after);
  if (code && ISO_CURRENCIES.has(code[1])) {
    currency = code[1];
    written = before.endsWith(code[1]) ? `${code[1]} ${digits}` : `${digits} ${code[1]}`;
  }
  for (const [candidate, iso] of CURRENCY_SYMBOLS) {
    if (before.endsWith(candidate)) {
      symbol = candidate;
      written = `${candidate}${digits}`;
    } else if (after.startsWith(candidate)) {
      symbol = candidate;
      written = `${digits} ${candidate}`;
    } else continue;
    currency ??= iso;
    break;
  }
  currency ??= currencyCode(currencyHint);
  return { amount, text: written, ...(symbol ? { symbol } : {}), ...(currency ? { currency } : {}) };
}

/** schema.org availability values and whether each means the product can be bought now. */
const AVAILABILITY: Record<string, boolean> = {
  instock: true,
  limitedavailability: true,
  onlineonly: true,
  instoreonly: true,
  preorder: true,
  presale: true,
  backorder: true,
  madetoorder: true,
  outofstock: false,
  soldout: false,
  discontinued: false,
};

/**
 * Normalises a schema.org availability (`https://schema.org/InStock`, `InStock`, `in stock`,
 * `out of stock`) to its schema.org name and whether the product can be bought now.
 */
export function normalizeAvailability(
  raw: string | undefined,
): { status: string; available: boolean } | undefined {
  const key = raw
    ?.replace(/^https?:\/\/(www\.)?schema\.org\//i, '')
    .replace(/[^a-z]/gi, '')
    .toLowerCase();
  if (!key) return undefined;
  if (key in AVAILABILITY) {
    const names: Record<string, string> = {
      instock: 'InStock',
      limitedavailability: 'LimitedAvailability',
      onlineonly: 'OnlineOnly',
      instoreonly: 'InStoreOnly',
      preorder: 'PreOrder',
      presale: 'PreSale',
      backorder: 'BackOrder',
      madetoorder: 'MadeToOrder',
      outofstock: 'OutOfStock',
      soldout: 'SoldOut',
      discontinued: 'Discontinued',
    };
    return { status: names[key], available: AVAILABILITY[key] };
  }
  if (/outofstock|unavailable|notavailable|soldout/.test(key))
    return { status: 'OutOfStock', available: false };
  if (/instock|available/.test(key)) return { status: 'InStock', available: true };
  return undefined;
}

/**
 * A phone number as the knowledge graph writes it (`{string, digits}`): `string` as written,
 * `digits` the E.164 form when the number is valid (national numbers need `country`).
 */
export function toPhoneNumber(raw: string, country?: string): PhoneNumber | undefined {
  const written = raw.replace(/\s+/g, ' ').trim();
  if ((written.match(/\d/g) ?? []).length < 6) return undefined;
  const region = country && /^[A-Z]{2}$/i.test(country) ? (country.toUpperCase() as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(written, region);
  return parsed?.isValid() ? { string: written, digits: parsed.number } : { string: written };
}

/** The ISO 3166-1 alpha-2 country suggested by a host's country-code TLD (`.de` → `DE`, `.co.uk` → `GB`). */
export function countryOfHost(host: string | undefined): string | undefined {
  const tld = host?.toLowerCase().split('.').pop();
  if (tld?.length !== 2) return undefined;
  return tld === 'uk' ? 'GB' : tld.toUpperCase();
}
