/**
 * The normalisers' shipped data (`./data/`): tables of legal forms, person-name parts, free-mail
 * domains, role mailboxes and the place hierarchy, one record a line, `#` comments, fields
 * separated by tabs and list items by `|`. Read synchronously when a table is first needed (every
 * thread that matches reads its own copy; the largest, the cities, is about 0.6 MB).
 */
import { readFileSync } from 'node:fs';

/** The records of data file `name`: each a list of fields (tab-separated), comments left out. */
export function readDataFile(name: string): string[][] {
  const text = readFileSync(new URL(`./data/${name}`, import.meta.url), 'utf8');
  const out: string[][] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    out.push(line.split('\t'));
  }
  return out;
}

/** A field's list items (`a|b|c`); none for an empty or missing field. */
export function listField(field: string | undefined): string[] {
  return field ? field.split('|').filter((item) => item !== '') : [];
}
