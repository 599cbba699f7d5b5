/**
 * Person names: folded tokens without titles and generational suffixes, nicknames mapped to
 * the formal given name, first/last split that tolerates "Surname, Given" and "Surname Given".
 */
import { textTokens } from './text.ts';

// Nickname → formal given name (English usage). A formal name maps to itself implicitly.
const NICKNAMES: Readonly<Record<string, string>> = {
  abby: 'abigail',
  abe: 'abraham',
  al: 'albert',
  alex: 'alexander',
  alf: 'alfred',
  alfie: 'alfred',
  andy: 'andrew',
  drew: 'andrew',
  tony: 'anthony',
  archie: 'archibald',
  art: 'arthur',
  bart: 'bartholomew',
  ben: 'benjamin',
  benny: 'benjamin',
  bert: 'herbert',
  bob: 'robert',
  bobby: 'robert',
  rob: 'robert',
  robbie: 'robert',
  cathy: 'catherine',
  kate: 'catherine',
  katie: 'catherine',
  kathy: 'katherine',
  charlie: 'charles',
  chas: 'charles',
  chuck: 'charles',
  chris: 'christopher',
  kit: 'christopher',
  dan: 'daniel',
  danny: 'daniel',
  dave: 'david',
  davy: 'david',
  di: 'diana',
  dick: 'richard',
  rich: 'richard',
  rick: 'richard',
  ricky: 'richard',
  dickie: 'richard',
  don: 'donald',
  ed: 'edward',
  eddie: 'edward',
  ned: 'edward',
  ted: 'edward',
  teddy: 'edward',
  liz: 'elizabeth',
  lizzie: 'elizabeth',
  beth: 'elizabeth',
  betty: 'elizabeth',
  bess: 'elizabeth',
  eliza: 'elizabeth',
  ellie: 'eleanor',
  nell: 'eleanor',
  fred: 'frederick',
  freddie: 'frederick',
  freddy: 'frederick',
  frank: 'francis',
  fran: 'frances',
  gabe: 'gabriel',
  geoff: 'geoffrey',
  gerry: 'gerald',
  harry: 'henry',
  hal: 'henry',
  hank: 'henry',
  izzy: 'isabel',
  jack: 'john',
  johnny: 'john',
  jon: 'jonathan',
  jim: 'james',
  jimmy: 'james',
  jamie: 'james',
  jan: 'janet',
  jen: 'jennifer',
  jenny: 'jennifer',
  jeff: 'jeffrey',
  jerry: 'gerald',
  jo: 'joanna',
  joe: 'joseph',
  joey: 'joseph',
  josh: 'joshua',
  judy: 'judith',
  ken: 'kenneth',
  kenny: 'kenneth',
  larry: 'lawrence',
  len: 'leonard',
  lenny: 'leonard',
  leo: 'leonard',
  lou: 'louis',
  maggie: 'margaret',
  meg: 'margaret',
  peggy: 'margaret',
  marge: 'margaret',
  matt: 'matthew',
  max: 'maximilian',
  mike: 'michael',
  mick: 'michael',
  mickey: 'michael',
  molly: 'mary',
  polly: 'mary',
  nat: 'nathaniel',
  nate: 'nathan',
  nick: 'nicholas',
  nicky: 'nicholas',
  pat: 'patrick',
  paddy: 'patrick',
  patty: 'patricia',
  pete: 'peter',
  phil: 'philip',
  ray: 'raymond',
  reg: 'reginald',
  ron: 'ronald',
  ronnie: 'ronald',
  sam: 'samuel',
  sammy: 'samuel',
  sandy: 'alexandra',
  steve: 'stephen',
  steven: 'stephen',
  stu: 'stuart',
  sue: 'susan',
  susie: 'susan',
  suzy: 'susan',
  terry: 'terence',
  tim: 'timothy',
  timmy: 'timothy',
  tom: 'thomas',
  tommy: 'thomas',
  val: 'valerie',
  vic: 'victor',
  vince: 'vincent',
  walt: 'walter',
  wally: 'walter',
  bill: 'william',
  billy: 'william',
  will: 'william',
  willie: 'william',
  willy: 'william',
  liam: 'william',
  zach: 'zachary',
  zack: 'zachary',
  wm: 'william',
  thos: 'thomas',
  jas: 'james',
  geo: 'george',
  jno: 'john',
  saml: 'samuel',
  benj: 'benjamin',
  edw: 'edward',
  ricd: 'richard',
  hy: 'henry',
  isa: 'isabella',
  bella: 'isabella',
  sophie: 'sophia',
  evie: 'eve',
  millie: 'amelia',
  emmy: 'emily',
  olly: 'oliver',
  ollie: 'oliver',
  seb: 'sebastian',
  theo: 'theodore',
  freya: 'freya',
};

/** Honorifics, titles of nobility and generational suffixes: never identifying tokens. */
const NAME_NOISE: ReadonlySet<string> = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'sir',
  'dame',
  'lord',
  'lady',
  'rev',
  'fr',
  'jr',
  'sr',
  'ii',
  'iii',
  'iv',
  'phd',
  'md',
  'esq',
  'baron',
  'baroness',
  'baronet',
  'earl',
  'count',
  'countess',
  'duke',
  'duchess',
  'viscount',
  'marquess',
  'bt',
  'kt',
  'st',
  'of',
  'the',
  'and',
  'de',
  'von',
  'van',
  'der',
  'la',
  'le',
  'du',
  'da',
  'di',
  'del',
  '1st',
  '2nd',
  '3rd',
  '4th',
  '5th',
  '6th',
  '7th',
  '8th',
  '9th',
  '10th',
  '11th',
  '12th',
  '13th',
  '14th',
  '15th',
  '16th',
  '17th',
  '18th',
]);

/** The formal given name for a nickname or abbreviation (`bill` → `william`), else the token. */
export function canonicalGivenName(token: string): string {
  return NICKNAMES[token] ?? token;
}

/** A normalised person name. */
export interface NormalizedPersonName {
  /** Folded tokens in written order, titles and suffixes removed. */
  readonly tokens: readonly string[];
  /** Given name as written (folded), when the name has one. */
  readonly first?: string;
  /** Surname (folded): the last token, or the part before a comma. */
  readonly last?: string;
}

/** True when `token` is a title, particle or suffix that does not identify a person. */
export function isPersonNameNoise(token: string): boolean {
  return NAME_NOISE.has(token) || /^\d+$/.test(token);
}

/**
 * Normalises a person name: folds it, removes titles, particles and ordinals, and splits it
 * into given name and surname ("Smith, John" is read surname-first). A single token is taken as
 * a given name. Word order errors (surname written first without a comma) are not detected
 * here; the scorer compares names order-free.
 */
export function normalizePersonName(name: string): NormalizedPersonName {
  const comma = name.indexOf(',');
  if (comma > 0) {
    const before = textTokens(name.slice(0, comma)).filter((t) => !isPersonNameNoise(t));
    const after = textTokens(name.slice(comma + 1)).filter((t) => !isPersonNameNoise(t));
    // "Clifford, 1st Baron Clifford" is a name plus a title, not "Surname, Given".
    if (before.length === 1 && after.length >= 1 && after.length <= 3) {
      return { tokens: [...after, ...before], first: after[0], last: before[0] };
    }
    const tokens = before.length > 0 ? before : after;
    return splitTokens(tokens);
  }
  return splitTokens(textTokens(name).filter((t) => !isPersonNameNoise(t)));
}

function splitTokens(tokens: string[]): NormalizedPersonName {
  if (tokens.length === 0) return { tokens };
  if (tokens.length === 1) return { tokens, first: tokens[0] };
  return { tokens, first: tokens[0], last: tokens[tokens.length - 1] };
}
