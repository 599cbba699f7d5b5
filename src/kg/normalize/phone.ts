/**
 * Phone numbers to E.164, with a region hint (ISO 3166-1 alpha-2) for numbers written without
 * an international prefix; the hint usually comes from the query's location.
 */
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * The E.164 form of `phone` (`+14155550100`), or `undefined` when it cannot be parsed. A number
 * without a `+`/`00` prefix is read in `regionHint` when given.
 */
export function normalizePhone(phone: string, regionHint?: string): string | undefined {
  const trimmed = phone.trim().replace(/^00/, '+');
  if (!/\d/.test(trimmed)) return undefined;
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
