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
  const matchedA = new Uint8Array(la);
  const matchedB = new Uint8Array(lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(lb - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (!matchedB[j] && a.charCodeAt(i) === b.charCodeAt(j)) {
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
    if (!matchedA[i]) continue;
    while (!matchedB[k]) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  const jaro = (m / la + m / lb + (m - transpositions / 2) / m) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/**
 * Optimal-string-alignment edit distance (insert, delete, substitute, transpose adjacent),
 * stopping early: returns `max + 1` as soon as the distance must exceed `max`.
 */
export function editDistance(a: string, b: string, max = 3): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const la = a.length;
  const lb = b.length;
  let prev2 = new Array<number>(lb + 1).fill(0);
  let prev = Array.from({ length: lb + 1 }, (_, j) => j);
  let curr = new Array<number>(lb + 1).fill(0);
  for (let i = 1; i <= la; i++) {
    curr[0] = i;
    let rowMin = i;
    for (let j = 1; j <= lb; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(prev[j] + 1, curr[j - 1] + 1, prev[j - 1] + cost);
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        d = Math.min(d, prev2[j - 2] + 1);
      }
      curr[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, curr] = [prev, curr, prev2];
  }
  return prev[lb];
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
    const distance = editDistance(a, b, 2);
    if (distance === 1 && shorter >= 4) return 0.85;
    if (distance === 1 && shorter >= 3) return 0.6;
    if (distance === 2 && shorter >= 7) return 0.65;
    if (a.length >= 3 && b.length > a.length && b.startsWith(a)) return 0.7;
    if (b.length >= 3 && a.length > b.length && a.startsWith(b)) return 0.7;
  }
  return 0;
}

/** Which tokens of `query` are matched by tokens of `candidate`, each with its best similarity. */
export function bestTokenMatches(query: readonly string[], candidate: readonly string[]): number[] {
  return query.map((q) => {
    let best = 0;
    for (const c of candidate) {
      const s = tokenSimilarity(q, c);
      if (s > best) {
        best = s;
        if (best === 1) break;
      }
    }
    return best;
  });
}
