/**
 * Which Wikidata entities the import takes: humans (instance of, P31, Q5) as Persons, and
 * instances of a set of organization classes as Organizations. The classes ship as data
 * (`organization-classes.json`, documented in docs/wikidata-import.md); `--org-classes FILE`
 * replaces them. Only direct P31 values count (no walk up subclass of, P279), and deprecated
 * P31 statements do not: an entity once wrongly said to be a company is not one.
 */
import fs from 'node:fs';
import type { EntityType } from '../../kg/index.ts';
import { itemNumber } from './wikidata-values.ts';

/** Human (Q5): the class whose instances are imported as Persons. */
export const HUMAN = 5;

const SHIPPED = new URL('./organization-classes.json', import.meta.url);

/**
 * A list of organization classes was unusable (`--org-classes FILE`). CLI only, not in the error
 * registry: `quarry import` prints it and exits with 1.
 */
export class ClassListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClassListError';
  }
}

/**
 * Reads a list of classes: a JSON file shaped like `organization-classes.json`
 * (`{"classes":[{"id":"Q43229","label":"organization"}, …]}`), a JSON array of Q-ids (or of such
 * objects), or text with one Q-id first on each line (`#` starts a comment). Throws
 * `ClassListError` naming what is wrong; an empty list is an error too.
 */
export function parseClassList(text: string, name: string): number[] {
  const trimmed = text.trim();
  let ids: unknown[];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new ClassListError(`${name}: invalid JSON: ${(error as Error).message}`);
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { classes?: unknown })?.classes;
    if (!Array.isArray(list)) throw new ClassListError(`${name}: expected {"classes": [...]} or an array`);
    ids = list.map((item) =>
      item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : item,
    );
  } else {
    ids = trimmed
      .split('\n')
      .map(
        (line) =>
          line
            .replace(/#.*/, '')
            .trim()
            .split(/[\s,]+/)[0],
      )
      .filter((id) => id !== undefined && id !== '');
  }
  const classes: number[] = [];
  for (const [index, id] of ids.entries()) {
    const n = itemNumber(id);
    if (n === undefined) {
      throw new ClassListError(
        `${name}: item ${index + 1} is not a Wikidata item id (Q…): ${JSON.stringify(id)}`,
      );
    }
    classes.push(n);
  }
  if (classes.length === 0) throw new ClassListError(`${name}: the list of organization classes is empty`);
  return classes;
}

/** The organization classes shipped with Quarry. */
export function shippedOrganizationClasses(): number[] {
  return parseClassList(fs.readFileSync(SHIPPED, 'utf8'), 'organization-classes.json');
}

/** The organization classes of `file`, or the shipped ones. Throws `ClassListError`. */
export function loadOrganizationClasses(file?: string): number[] {
  if (file === undefined) return shippedOrganizationClasses();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ClassListError(`${file}: cannot read: ${(error as Error).message}`);
  }
  return parseClassList(text, file);
}

/** Decides an entity's type from its P31 values. */
export class EntitySelector {
  readonly #organizations: ReadonlySet<number>;

  constructor(organizationClasses: Iterable<number>) {
    this.#organizations = new Set(organizationClasses);
  }

  /** `Person` for a human, `Organization` for an instance of an organization class, else undefined. */
  typeOf(classes: readonly number[]): EntityType | undefined {
    let organization = false;
    for (const n of classes) {
      if (n === HUMAN) return 'Person';
      if (this.#organizations.has(n)) organization = true;
    }
    return organization ? 'Organization' : undefined;
  }
}
