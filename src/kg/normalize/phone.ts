/**
 * Phone numbers to E.164, with a region hint (ISO 3166-1 alpha-2) for numbers written without
 * an international prefix; the hint usually comes from the query's location. A number written
 * without `+` and without a location is read every plausible way (`readPhone`).
 */
import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  Metadata,
  parsePhoneNumberFromString,
} from 'libphonenumber-js';
import { BoundedMemo } from './memo.ts';

/**
 * Fewest digits (country code included) of a number before an extension: "+1 415 555-0100"'s
 * "+1 415 555" has 7 and is no whole number, so its dash is punctuation, known without a parse.
 * Only a few territories' numbers are shorter (Niue, Tokelau, Saint Helena): an extension after
 * one of theirs is read as digits of the number.
 */
const EXTENSION_BASE_MIN_DIGITS = 8;

function digitCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) n++;
  return n;
}

/**
 * The E.164 form of `phone` (`+14155550100`), or `undefined` when it cannot be parsed. A number
 * without a `+`/`00` prefix is read in `regionHint` when given.
 */
export function normalizePhone(phone: string, regionHint?: string): string | undefined {
  // `+49 (0) 151 …`: the national trunk prefix written beside the country code is not dialled.
  const trimmed = phone
    .trim()
    .replace(/^00/, '+')
    .replace(/^(\+\d{1,3})\s*\(0\)/, '$1');
  if (!/\d/.test(trimmed)) return undefined;
  // "+33 6 12 34 44 59-813": an extension after a dash, when the number before it is complete
  // and the whole is no number (a dash inside a number, "+1 415 555-0100", stays). Both parses
  // cost ~10 µs: only when the part before the dash can be a whole number by its length.
  const extension = /^(\+.*\d)\s*[-\u2013]\s*\d{1,5}$/u.exec(trimmed);
  if (
    extension &&
    digitCount(extension[1]) >= EXTENSION_BASE_MIN_DIGITS &&
    !parsePhoneNumberFromString(trimmed)?.isValid()
  ) {
    const base = parsePhoneNumberFromString(extension[1]);
    if (base?.isValid()) return base.number;
  }
  // Already international and plainly punctuated: E.164 is its digits (no metadata lookup).
  if (/^\+[\d\s().-]{7,}$/.test(trimmed)) {
    const digits = trimmed.replace(/\D/g, '');
    if (digits.length >= 8 && digits.length <= 15 && digits[0] !== '0') return `+${digits}`;
  }
  const region = regionHint && /^[A-Z]{2}$/.test(regionHint) ? (regionHint as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(trimmed, region);
  if (parsed?.isPossible()) return parsed.number;
  // Without a region, a long digit run is still comparable as digits.
  const digits = trimmed.replace(/\D/g, '');
  return digits.length >= 7 ? `#${digits}` : undefined;
}

/** How a phone number was read. */
export interface PhoneReading {
  /** E.164 numbers it may be (one when it was unambiguous); empty when it is no number. */
  readonly numbers: readonly string[];
  /**
   * Set when the number had neither `+` nor a location to read it in and had to be guessed:
   * the countries of the readings kept (empty when no reading was valid).
   */
  readonly guessedCountries?: readonly string[];
}

/**
 * Countries whose national numbers a number without `+` and without a location is tried in
 * (where most of the world's business numbers are), after the reading as an international
 * number with its `+` left out (`5511961237999` is +55 11 96123-7999).
 */
export const GUESSED_COUNTRIES: readonly CountryCode[] = [
  'US',
  'GB',
  'DE',
  'FR',
  'ES',
  'IT',
  'NL',
  'BE',
  'CH',
  'AT',
  'SE',
  'NO',
  'DK',
  'FI',
  'PL',
  'PT',
  'IE',
  'CA',
  'AU',
  'NZ',
  'BR',
  'MX',
  'AR',
  'IN',
  'JP',
  'CN',
  'KR',
  'SG',
  'ZA',
  'TR',
  'IL',
  'AE',
];

/**
 * `phone` as E.164 numbers. With a `+`/`00` prefix or a `regionHint` it has one reading (as
 * `normalizePhone`). Without either, it is read as an international number missing its `+` and
 * as a national number of the common countries, and every valid reading is kept (each is an
 * exact key: a number valid in several countries matches at most the entities that have it).
 */
export function readPhone(phone: string, regionHint?: string): PhoneReading {
  const several = /[;,|/]|\sor\s/.test(phone) ? severalNumbers(phone) : undefined;
  if (several) return readSeveral(several, regionHint);
  // "Tel.: +49 …", "Phone: …", "tel:+1-…": a label is no part of the number (left on, a `+`
  // after it went unseen and the number was guessed in several countries).
  const trimmed = phone.trim().replace(PHONE_LABEL, '');
  if (trimmed !== phone.trim()) return readPhone(trimmed, regionHint);
  const digits = trimmed.replace(/\D/g, '');
  if (/^(\+|00)/.test(trimmed) || (regionHint && /^[A-Z]{2}$/.test(regionHint)) || digits.length < 6) {
    const one = normalizePhone(phone, regionHint);
    // A number the hint's country cannot hold may be an international one without `+`.
    if (one?.startsWith('#') && regionHint) {
      const international = parsePhoneNumberFromString(`+${digits}`);
      if (international?.isValid()) return { numbers: [international.number] };
    }
    return { numbers: one ? [one] : [] };
  }
  const guessed = guessedReadings.get(digits, () => guessReadings(digits));
  if (guessed.numbers.length === 0) {
    const fallback = normalizePhone(phone);
    return { numbers: fallback ? [fallback] : [], guessedCountries: [] };
  }
  return guessed;
}

/**
 * The readings of a number without `+` and without a location (`readPhone`), remembered per
 * thread by its digits, however they were written: ~100-170 µs of parses per number (an
 * international reading and ~8 countries', ~5 of them valid), and the same number comes again
 * (a switchboard written for everyone working there, a file enhanced twice). Frozen: every
 * caller shares one. 2 MiB hold ~3,000 numbers (~600 bytes each).
 */
const guessedReadings = new BoundedMemo<PhoneReading>(2 * 1024 * 1024, readingBytes);

/** What a remembered reading holds, roughly (`BoundedMemo`'s estimate). */
function readingBytes(reading: PhoneReading): number {
  let bytes = 64;
  for (const number of reading.numbers) bytes += 48 + 2 * number.length;
  for (const country of reading.guessedCountries ?? []) bytes += 48 + 2 * country.length;
  return bytes;
}

/**
 * `digits` read as an international number missing its `+` and as a national number of each
 * of `GUESSED_COUNTRIES` it may be (`guessedCountryTests`), every valid reading once, with the
 * countries of those kept; no numbers when no reading is valid.
 */
export function guessReadings(digits: string): PhoneReading {
  const readings: string[] = [];
  const countries: string[] = [];
  const keep = (number: string, country: string | undefined) => {
    if (readings.includes(number)) return;
    readings.push(number);
    if (country && !countries.includes(country)) countries.push(country);
  };
  const international = parsePhoneNumberFromString(`+${digits}`);
  if (international?.isValid()) keep(international.number, international.country);
  for (const { country, mayHold } of guessedCountryTests()) {
    if (!mayHold(digits)) continue;
    const national = parsePhoneNumberFromString(digits, country);
    if (national?.isValid()) keep(national.number, country);
  }
  return Object.freeze({ numbers: Object.freeze(readings), guessedCountries: Object.freeze(countries) });
}

/** A word (and a dot or colon) before a number: "Tel.:", "Phone", "T:", "tel:" (RFC 3966). */
const PHONE_LABEL = /^\p{L}[\p{L}.]*\s*:?\s*(?=[+(\d])/u;

/** What separates numbers written in one field: ";", ",", "|", " / " or " or ". */
const NUMBER_SEPARATOR = /\s*[;,|]\s*|\s+\/\s+|\s+or\s+/iu;

/**
 * The numbers of a field holding several ("+49 30 1234567 / +49 30 7654321": the office and a
 * mobile), each with 7 digits or more; undefined unless there are two or more ("030 / 1234567",
 * an area code set apart, is one number).
 */
function severalNumbers(phone: string): string[] | undefined {
  const parts = phone.split(NUMBER_SEPARATOR);
  if (parts.length < 2 || parts.some((part) => digitCount(part) < 7)) return undefined;
  return parts;
}

/** Each of `numbers` read (`readPhone`), their readings together. */
function readSeveral(numbers: readonly string[], regionHint: string | undefined): PhoneReading {
  const all: string[] = [];
  let guessed: string[] | undefined;
  for (const number of numbers) {
    const reading = readPhone(number, regionHint);
    for (const n of reading.numbers) if (!all.includes(n)) all.push(n);
    if (reading.guessedCountries) {
      guessed ??= [];
      for (const c of reading.guessedCountries) if (!guessed.includes(c)) guessed.push(c);
    }
  }
  return guessed ? { numbers: all, guessedCountries: guessed } : { numbers: all };
}

/** A guessed country and a cheap test of whether `digits` can be a valid number of it. */
interface GuessedCountryTest {
  readonly country: CountryCode;
  readonly mayHold: (digits: string) => boolean;
}

let guessedTests: readonly GuessedCountryTest[] | undefined;

/**
 * `GUESSED_COUNTRIES` with a test that rules a country out before the full parse (~5 µs each:
 * 32 of them made ~150 µs per number, a tenth of a query's CPU on a large graph). A necessary
 * condition, from the library's own metadata: reading digits as a national number of a country
 * strips at most its calling code (a number written with it but without `+`) and then what its
 * national prefix rule matches (trunk prefix, carrier code), so a valid reading is the digits as
 * [calling code][national prefix]national number, the last matching the national number pattern
 * of a country with that calling code. The regex tries every such split. The two other ways to
 * a valid reading always get the full parse: digits starting with the country's international
 * call prefix (read as another country's number) and countries whose metadata rewrites the
 * national number (a transform rule: Argentina's 15 → 9, Brazil's carrier codes, Japan's).
 */
function guessedCountryTests(): readonly GuessedCountryTest[] {
  guessedTests ??= GUESSED_COUNTRIES.map((country) => {
    const plan = planOf(country);
    if (!plan || typeof plan.nationalPrefixTransformRule() === 'string')
      return { country, mayHold: () => true };
    const code = getCountryCallingCode(country);
    const patterns = getCountries()
      .filter((sharing) => getCountryCallingCode(sharing) === code)
      .map((sharing) => `(?:${planOf(sharing)?.nationalNumberPattern() ?? '.*'})`);
    const prefix = plan.nationalPrefixForParsing();
    const idd = new RegExp(`^(?:${plan.IDDPrefix()})`);
    const split = new RegExp(`^(?:${code})?${prefix ? `(?:${prefix})?` : ''}(?:${patterns.join('|')})$`);
    return { country, mayHold: (digits: string) => idd.test(digits) || split.test(digits) };
  });
  return guessedTests;
}

/**
 * The numbering plan methods the pre-test reads: libphonenumber-js has them (its parser's own)
 * but types only a few. `undefined` when one is missing (a changed library): every country
 * then gets the full parse. normalize.test.ts compares the readings with parsing in every
 * country, so a pre-test that went wrong fails there.
 */
interface PlanRules {
  IDDPrefix(): string;
  nationalNumberPattern(): string;
  nationalPrefixForParsing(): string | undefined;
  nationalPrefixTransformRule(): string | undefined;
}

function planOf(country: CountryCode): PlanRules | undefined {
  const metadata = new Metadata();
  metadata.selectNumberingPlan(country);
  const plan = metadata.numberingPlan as Partial<PlanRules> | undefined;
  const methods = [
    'IDDPrefix',
    'nationalNumberPattern',
    'nationalPrefixForParsing',
    'nationalPrefixTransformRule',
  ];
  return plan && methods.every((m) => typeof plan[m as keyof PlanRules] === 'function')
    ? (plan as PlanRules)
    : undefined;
}
