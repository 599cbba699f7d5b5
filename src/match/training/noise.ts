/**
 * Noise of the kinds real queries carry, applied with a seeded PRNG: keyboard typos, case
 * changes, abbreviations, dropped words, reordering, folded accents, acronyms, URL forms,
 * nicknames, swapped or missing name parts, misspelt places and e-mails.
 */
import { foldText } from '../../kg/index.ts';
import type { Random } from '../../random.ts';

const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const NEIGHBOURS = new Map<string, string>();
for (let r = 0; r < KEYBOARD_ROWS.length; r++) {
  for (let c = 0; c < KEYBOARD_ROWS[r].length; c++) {
    const around: string[] = [];
    for (const [dr, dc] of [
      [0, -1],
      [0, 1],
      [-1, 0],
      [-1, 1],
      [1, -1],
      [1, 0],
    ]) {
      const ch = KEYBOARD_ROWS[r + dr]?.[c + dc];
      if (ch) around.push(ch);
    }
    NEIGHBOURS.set(KEYBOARD_ROWS[r][c], around.join(''));
  }
}

/** One character edit: keyboard-neighbour substitution, deletion, insertion, transposition or doubling. */
export function typo(text: string, random: Random): string {
  const positions = [...text].map((ch, i) => (/[\p{L}]/u.test(ch) ? i : -1)).filter((i) => i >= 0);
  if (positions.length < 2) return text;
  const i = random.pick(positions);
  const ch = text[i];
  const lower = ch.toLowerCase();
  switch (random.int(5)) {
    case 0: {
      const around = NEIGHBOURS.get(lower) ?? 'e';
      const sub = around[random.int(around.length)];
      return text.slice(0, i) + (ch === lower ? sub : sub.toUpperCase()) + text.slice(i + 1);
    }
    case 1:
      return text.slice(0, i) + text.slice(i + 1);
    case 2: {
      const around = NEIGHBOURS.get(lower) ?? 'e';
      return text.slice(0, i) + around[random.int(around.length)] + text.slice(i);
    }
    case 3:
      return i + 1 < text.length && text[i + 1] !== ' '
        ? text.slice(0, i) + text[i + 1] + ch + text.slice(i + 2)
        : text.slice(0, i) + text.slice(i + 1);
    default:
      return text.slice(0, i) + ch + text.slice(i);
  }
}

/** 1 or 2 typos. */
export function typos(text: string, random: Random): string {
  let out = typo(text, random);
  if (random.chance(0.35)) out = typo(out, random);
  return out;
}

/** Lowercase, uppercase, or some words lowercased. */
export function changeCase(text: string, random: Random): string {
  const r = random.int(3);
  if (r === 0) return text.toLowerCase();
  if (r === 1) return text.toUpperCase();
  return text
    .split(' ')
    .map((w) => (random.chance(0.5) ? w.toLowerCase() : w))
    .join(' ');
}

/** Accents and special letters folded, case kept where possible. */
export function removeDiacritics(text: string): string {
  return [...text]
    .map((ch) => {
      const folded = foldText(ch);
      return ch !== ch.toLowerCase() ? folded.toUpperCase() : folded;
    })
    .join('');
}

const ABBREVIATIONS: readonly [RegExp, string][] = [
  [
    /\b(University|Universidad|Universidade|Universität|Université|Università|Universiteit|Universitas)\b/g,
    'Univ.',
  ],
  [/\bInstitute\b/g, 'Inst.'],
  [/\bInstitut[eo]?\b/g, 'Inst.'],
  [/\bCollege\b/g, 'Coll.'],
  [/\bTechnology\b/g, 'Tech.'],
  [/\bInternational\b/g, 'Intl.'],
  [/\bSaint\b/g, 'St.'],
  [/\bMount\b/g, 'Mt.'],
  [/\bNational\b/g, 'Natl.'],
  [/\bPolytechnic\b/g, 'Poly.'],
  [/\bAcademy\b/g, 'Acad.'],
  [/\bSciences?\b/g, 'Sci.'],
  [/\bEngineering\b/g, 'Eng.'],
  [/\bMedical\b/g, 'Med.'],
  [/\bCommunity\b/g, 'Comm.'],
  [/\bManagement\b/g, 'Mgmt.'],
  [/\bSchool\b/g, 'Sch.'],
  [/\bCentre|Center\b/g, 'Ctr.'],
  [/\bAssociation\b/g, 'Assn.'],
  [/\bDepartment\b/g, 'Dept.'],
];

/** Abbreviates one or more generic words ("University" → "Univ."); unchanged when none applies. */
export function abbreviate(name: string, random: Random): string {
  const applicable = ABBREVIATIONS.filter(([re]) => {
    re.lastIndex = 0;
    return re.test(name);
  });
  if (applicable.length === 0) return name;
  let out = name;
  for (const [re, short] of applicable) {
    if (out === name || random.chance(0.5)) {
      re.lastIndex = 0;
      out = out.replace(re, short);
    }
  }
  return out;
}

const GENERIC_WORDS =
  /\b(State|Community|Technical|National|International|Public|Private|Catholic|Christian|Regional|Municipal|Federal|Royal|Higher|Free)\s/;

/** Drops a generic word, an "of …" tail, a parenthetical or a trailing segment. */
export function dropWord(name: string, random: Random): string {
  const options: string[] = [];
  if (GENERIC_WORDS.test(name)) options.push(name.replace(GENERIC_WORDS, ''));
  const of = name.match(/^(.+?\b(University|College|Institute|School|Academy))\s+(of|for)\s+.+$/);
  if (of && of[1].split(' ').length >= 2) options.push(of[1]);
  if (/\(.+\)/.test(name)) options.push(name.replace(/\s*\(.+?\)\s*/, ' ').trim());
  if (/ - |, /.test(name)) options.push(name.split(/ - |, /)[0]);
  const words = name.split(' ');
  if (words.length >= 4) {
    const i = 1 + random.int(words.length - 2);
    options.push([...words.slice(0, i), ...words.slice(i + 1)].join(' '));
  }
  return options.length ? random.pick(options) : name;
}

/** "University of X" ↔ "X University" (also College/Institute/Academy/School). */
export function reorder(name: string): string {
  const front = name.match(/^(University|College|Institute|Academy|School)\s+of\s+(.+)$/);
  if (front) return `${front[2]} ${front[1]}`;
  const back = name.match(/^(.+?)\s+(University|College|Institute|Academy|School)$/);
  if (back) return `${back[2]} of ${back[1]}`;
  return name;
}

/** Initials of the significant words. */
export function acronym(name: string): string {
  return name
    .split(/[\s-]+/)
    .filter(
      (w) => w.length > 0 && !/^(of|the|and|de|del|la|le|des|di|da|du|for|at|in|y|e|et|&|zu|für)$/i.test(w),
    )
    .map((w) => foldText(w)[0] ?? '')
    .join('')
    .toUpperCase();
}

/** A host in one of the forms people paste: bare, https, www, with a path, or a subdomain. */
export function urlVariant(host: string, random: Random): string {
  switch (random.int(5)) {
    case 0:
      return host;
    case 1:
      return `https://${host}/`;
    case 2:
      return `http://www.${host}`;
    case 3:
      return `https://www.${host}/${random.pick(['admissions', 'about', 'en', 'contact', 'research/index.html'])}${random.chance(0.3) ? '?lang=en' : ''}`;
    default:
      return `${random.pick(['admissions', 'www.cs', 'library', 'portal', 'mail'])}.${host}`;
  }
}

const NICKNAMES_OUT: Readonly<Record<string, readonly string[]>> = {
  thomas: ['tom', 'tommy'],
  william: ['will', 'bill', 'billy'],
  robert: ['rob', 'bob', 'robbie'],
  richard: ['rich', 'dick', 'rick'],
  james: ['jim', 'jimmy', 'jamie'],
  john: ['jack', 'johnny'],
  edward: ['ed', 'ted', 'eddie'],
  elizabeth: ['liz', 'beth', 'betty'],
  margaret: ['maggie', 'meg', 'peggy'],
  charles: ['charlie', 'chas'],
  henry: ['harry', 'hal'],
  alexander: ['alex'],
  benjamin: ['ben'],
  samuel: ['sam'],
  joseph: ['joe'],
  michael: ['mike', 'mick'],
  daniel: ['dan', 'danny'],
  david: ['dave'],
  frederick: ['fred', 'freddie'],
  christopher: ['chris'],
  matthew: ['matt'],
  nicholas: ['nick'],
  anthony: ['tony'],
  catherine: ['kate', 'cathy'],
  isabella: ['bella', 'isa'],
  oliver: ['olly', 'ollie'],
  joshua: ['josh'],
  zachary: ['zach'],
  jennifer: ['jen', 'jenny'],
  patrick: ['pat'],
  peter: ['pete'],
  george: ['geo'],
  reginald: ['reggie', 'reg'],
  eleanor: ['nellie', 'ellie'],
  dorothy: ['dora', 'dolly'],
  stephen: ['steve', 'stefan'],
  louis: ['lou', 'luis'],
};

/** A nickname for a formal given name (folded, lowercase), or `undefined`. */
export function nickname(first: string, random: Random): string | undefined {
  const options = NICKNAMES_OUT[foldText(first)];
  return options ? random.pick(options) : undefined;
}
