/**
 * Roughly how many bytes of heap `value` (a parsed JSON value) holds: strings by their length,
 * numbers and literals as 8, arrays and objects with a small overhead per slot. Caches use it to
 * bound themselves by memory rather than by a count of entries, whose size varies tenfold.
 * Deeper than a few levels the rest is counted as a flat 64 bytes (JSON profiles are shallow).
 */
export function approximateBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return 16 + value.length;
  if (value === null || typeof value !== 'object') return 8;
  if (depth > 8) return 64;
  let bytes = 32;
  if (Array.isArray(value)) {
    for (const item of value) bytes += 8 + approximateBytes(item, depth + 1);
    return bytes;
  }
  for (const key in value) {
    bytes += 8 + key.length + approximateBytes((value as Record<string, unknown>)[key], depth + 1);
  }
  return bytes;
}
