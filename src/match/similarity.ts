/** String similarity measures used by the features (pure, allocation-light). */

/**
 * Jaro-Winkler similarity in [0, 1] (prefix scale 0.1, prefix up to 4 characters).
 * 1 means equal strings; two empty strings are equal.
 */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  if (la <= 32 && lb <= 32) {
    const short = jaroWinklerShort(a, b, la, lb, window);
    if (short >= 0) return short;
  }
  // Which characters matched, in two reused buffers (cleared on the way out): two arrays
  // allocated per call were ~10% of the matcher's garbage per query (issue 30).
  if (matchedA.length < la) matchedA = new Uint8Array(2 * la);
  if (matchedB.length < lb) matchedB = new Uint8Array(2 * lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const ca = a.charCodeAt(i);
    const from = i > window ? i - window : 0;
    const to = i + window < lb - 1 ? i + window : lb - 1;
    // The character first: most positions differ (e-mail address pairs: ~18% faster).
    for (let j = from; j <= to; j++) {
      if (b.charCodeAt(j) === ca && matchedB[j] === 0) {
        matchedA[i] = 1;
        matchedB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (matchedA[i] === 0) continue;
    while (matchedB[k] === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  matchedA.fill(0, 0, la);
  matchedB.fill(0, 0, lb);
  return winkler(a, b, la, lb, matches, transpositions);
}

/** Jaro-Winkler from the Jaro counts (`matches` > 0). */
function winkler(
  a: string,
  b: string,
  la: number,
  lb: number,
  matches: number,
  transpositions: number,
): number {
  const m = matches;
  const jaro = (m / la + m / lb + (m - transpositions / 2) / m) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

let matchedA = new Uint8Array(64);
let matchedB = new Uint8Array(64);

/** For each ASCII code, the positions in `b` holding it (bit j: `b[j]`), while `jaroWinklerShort` runs. */
const positionsOf = new Int32Array(128);

/**
 * `jaroWinkler` of strings of at most 32 characters, `b` ASCII, with the matched positions as
 * bits of one integer each: the match of `a[i]` is the lowest position in the window whose
 * character is `a[i]`'s and not yet matched (the loop's first), found by one AND of bit masks
 * instead of a scan of the window, and the transpositions pair the set bits in order as the
 * loop pairs the flags. The same counts, so the same value, at a third of the cost (~720 ns a
 * pair of names or addresses: 4.8% of the matcher's thread). -1 when `b` is not ASCII.
 */
function jaroWinklerShort(a: string, b: string, la: number, lb: number, window: number): number {
  for (let j = 0; j < lb; j++) {
    const c = b.charCodeAt(j);
    if (c >= 128) {
      for (let k = 0; k < j; k++) positionsOf[b.charCodeAt(k)] = 0;
      return -1;
    }
    positionsOf[c] |= 1 << j;
  }
  let bitsB = 0;
  let bitsA = 0;
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const ca = a.charCodeAt(i);
    // A character `b` lacks (or beyond ASCII, which `b` has none of) matches nothing.
    const at = ca < 128 ? positionsOf[ca] : 0;
    if (at === 0) continue;
    const from = i > window ? i - window : 0;
    const to = i + window < lb - 1 ? i + window : lb - 1;
    if (from > to) continue;
    const width = to - from + 1;
    const inWindow = (width === 32 ? -1 : (1 << width) - 1) << from;
    const free = at & ~bitsB & inWindow;
    if (free === 0) continue;
    bitsB |= free & -free;
    bitsA |= 1 << i;
    matches++;
  }
  for (let j = 0; j < lb; j++) positionsOf[b.charCodeAt(j)] = 0;
  if (matches === 0) return 0;
  let transpositions = 0;
  let rest = bitsB;
  for (let i = 0; i < la; i++) {
    if ((bitsA & (1 << i)) === 0) continue;
    const lowest = rest & -rest;
    rest ^= lowest;
    if (a.charCodeAt(i) !== b.charCodeAt(31 - Math.clz32(lowest))) transpositions++;
  }
  return winkler(a, b, la, lb, matches, transpositions);
}

/**
 * Optimal-string-alignment edit distance (insert, delete, substitute, transpose adjacent) when
 * it is at most `max`, else `max + 1` (returned as soon as the distance must exceed `max`).
 * Only the cells within `max` of the diagonal are computed (a cell further off costs more than
 * `max`; it is read as `max + 1`): an e-mail address pair is ~7 cells a row instead of ~25.
 */
export function editDistance(a: string, b: string, max = 3): number {
  if (a === b) return 0;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > max) return max + 1;
  if (la === 0 || lb === 0) return Math.max(la, lb);
  const beyond = max + 1;
  // Three rolling rows in one scratch buffer (no allocation per call; grows when needed).
  const width = lb + 1;
  if (scratch.length < 3 * width) scratch = new Int32Array(3 * width * 2);
  let prev2 = 0;
  let prev = width;
  let curr = 2 * width;
  for (let j = 0; j <= lb; j++) scratch[prev + j] = j <= max ? j : beyond;
  for (let i = 1; i <= la; i++) {
    const from = Math.max(1, i - max);
    const to = Math.min(lb, i + max);
    // The band's left neighbour: the first column (i edits) or a cell off the band.
    scratch[curr + from - 1] = from === 1 ? Math.min(i, beyond) : beyond;
    let rowMin = from === 1 ? i : beyond;
    const ca = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = scratch[prev + j - 1] + (ca === cb ? 0 : 1);
      const del = scratch[prev + j] + 1;
      const ins = scratch[curr + j - 1] + 1;
      if (del < d) d = del;
      if (ins < d) d = ins;
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        const t = scratch[prev2 + j - 2] + 1;
        if (t < d) d = t;
      }
      if (d > beyond) d = beyond;
      scratch[curr + j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return beyond;
    // The band's right neighbour, read by the next row.
    if (to < lb) scratch[curr + to + 1] = beyond;
    const old = prev2;
    prev2 = prev;
    prev = curr;
    curr = old;
  }
  return scratch[prev + lb];
}

let scratch = new Int32Array(96);
const bag = new Int32Array(128);

/** max(letters of a not in b, letters of b not in a), counted as multisets (ASCII; others share a slot). */
function bagDistance(a: string, b: string): number {
  for (let i = 0; i < a.length; i++) bag[a.charCodeAt(i) & 127]++;
  for (let i = 0; i < b.length; i++) bag[b.charCodeAt(i) & 127]--;
  let extraA = 0;
  let extraB = 0;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i) & 127;
    if (bag[c] > 0) extraA += bag[c];
    bag[c] = 0;
  }
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i) & 127;
    if (bag[c] < 0) extraB -= bag[c];
    bag[c] = 0;
  }
  return Math.max(extraA, extraB);
}

/**
 * Similarity of two tokens in [0, 1] that tolerates typos: 1 when equal; for tokens of 4+
 * characters, 1 edit scores 0.85 and 2 edits (tokens of 8+) 0.65; a prefix abbreviation of 3+
 * characters ("theol" for "theological") 0.7; otherwise 0.
 */
export function tokenSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const shorter = Math.min(a.length, b.length);
  if (shorter >= 3) {
    const prefix = a.length < b.length ? b.startsWith(a) : a.startsWith(b);
    // Bag distance is a lower bound of edit distance and costs one pass: most pairs stop here.
    if (!prefix && bagDistance(a, b) > 2) return 0;
    const distance = editDistance(a, b, 2);
    if (distance === 1 && shorter >= 4) return 0.85;
    if (distance === 1 && shorter >= 3) return 0.6;
    if (distance === 2 && shorter >= 7) return 0.65;
    if (a.length >= 3 && b.length > a.length && b.startsWith(a)) return 0.7;
    if (b.length >= 3 && a.length > b.length && a.startsWith(b)) return 0.7;
  }
  return 0;
}

/** The best `tokenSimilarity` (0–1) of `token` against any of `candidate`'s tokens. */
export function bestTokenMatch(token: string, candidate: readonly string[]): number {
  let best = 0;
  for (let j = 0; j < candidate.length; j++) {
    const s = tokenSimilarity(token, candidate[j]);
    if (s > best) {
      best = s;
      if (best === 1) break;
    }
  }
  return best;
}

/** Which tokens of `query` are matched by tokens of `candidate`, each with its best similarity. */
export function bestTokenMatches(query: readonly string[], candidate: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < query.length; i++) out.push(bestTokenMatch(query[i], candidate));
  return out;
}
