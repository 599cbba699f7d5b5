/**
 * The properties the reconciliation service knows (docs/reconcile.md#properties): each is an
 * entity field, may feed an enhance query field when a client sends it in a query's
 * `properties`, and may be fetched by data extension. One table, so that what suggest and
 * property proposals offer is exactly what queries and extension accept.
 */
import type { DateFact, Entity, EntityType, LinkedEntity, Location } from '../kg/index.ts';

/** An enhance query field a property's values feed (`enhance/query.ts`). */
export type QueryField =
  | 'name'
  | 'url'
  | 'email'
  | 'phone'
  | 'location'
  | 'employer'
  | 'title'
  | 'school'
  | 'ip'
  | 'description';

/** One value of data extension (the 0.2 data extension response's cell shapes). */
export type ExtensionValue =
  | { readonly str: string }
  | { readonly float: number }
  | { readonly date: string }
  | { readonly id: string; readonly name: string };

/** A property of the service. */
export interface ReconcileProperty {
  /** Its id: the entity field it reads, as a dotted path. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** The entity types that carry it. */
  readonly types: readonly EntityType[];
  /** The enhance field its values feed in a query; `undefined`: not usable in queries. */
  readonly queryField?: QueryField;
  /** Other names a client may give it as `pid` in queries (compared folded: see `propertyOf`). */
  readonly aliases?: readonly string[];
  /** The entity type of its values when they are linked entities (`{id, name}`). */
  readonly valueType?: EntityType;
  /** Its values on `entity` for data extension; `undefined`: not extensible. */
  readonly extract?: (entity: Entity) => ExtensionValue[];
}

const BOTH: readonly EntityType[] = Object.freeze(['Organization', 'Person']);
const ORGANIZATION: readonly EntityType[] = Object.freeze(['Organization']);
const PERSON: readonly EntityType[] = Object.freeze(['Person']);

function strings(values: readonly unknown[]): ExtensionValue[] {
  const out: ExtensionValue[] = [];
  for (const value of values) {
    if (typeof value === 'string' && value.trim() !== '') out.push({ str: value });
    else if (typeof value === 'number' && Number.isFinite(value)) out.push({ str: String(value) });
  }
  return out;
}

function linked(values: readonly (LinkedEntity | undefined)[]): ExtensionValue[] {
  const out: ExtensionValue[] = [];
  for (const value of values) {
    if (!value || typeof value.name !== 'string' || value.name.trim() === '') continue;
    // A link the graph resolved is a reconciled cell in the client; a bare name is text.
    out.push(typeof value.id === 'string' ? { id: value.id, name: value.name } : { str: value.name });
  }
  return out;
}

/**
 * A `DateFact` (`d1969-03-05`, year or month precision padded with `-01`) as the ISO date-time
 * the 0.2 schema requires (`1969-03-05T00:00:00Z`); `undefined` when unreadable.
 */
export function isoDateOf(fact: DateFact | undefined): string | undefined {
  if (typeof fact?.str !== 'string') return undefined;
  const match = /^d?(-?\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(fact.str);
  if (!match) return undefined;
  return `${match[1]}-${match[2] ?? '01'}-${match[3] ?? '01'}T00:00:00Z`;
}

function date(fact: DateFact | undefined): ExtensionValue[] {
  const iso = isoDateOf(fact);
  return iso === undefined ? [] : [{ date: iso }];
}

function number(value: unknown): ExtensionValue[] {
  return typeof value === 'number' && Number.isFinite(value) ? [{ float: value }] : [];
}

/** The place parts of a location as one line ("Mumbai, Maharashtra, India"). */
export function locationLine(location: Location | undefined): string | undefined {
  if (!location) return undefined;
  const parts = [location.city?.name, location.region?.name, location.country?.name].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  if (parts.length > 0) return parts.join(', ');
  return typeof location.address === 'string' && location.address !== '' ? location.address : undefined;
}

function locationPart(part: 'city' | 'region' | 'country') {
  return (entity: Entity) => strings([entity.location?.[part]?.name]);
}

/** Every property, in the order proposals list them. */
export const PROPERTIES: readonly ReconcileProperty[] = Object.freeze([
  {
    id: 'name',
    name: 'Name',
    description: 'The main name',
    types: BOTH,
    queryField: 'name',
    aliases: ['label'],
    extract: (e: Entity) => strings([e.name]),
  },
  {
    id: 'allNames',
    name: 'All names',
    description: 'Every name the entity is known by',
    types: BOTH,
    queryField: 'name',
    aliases: ['alias', 'aliases', 'othername'],
    extract: (e: Entity) => strings(e.allNames ?? []),
  },
  {
    id: 'homepageUri',
    name: 'Website',
    description: 'Home page (a URL on the site also matches)',
    types: BOTH,
    queryField: 'url',
    aliases: ['url', 'website', 'homepage', 'web', 'site', 'domain', 'uri'],
    extract: (e: Entity) => strings([e.homepageUri]),
  },
  {
    id: 'allUris',
    name: 'All URLs',
    description: 'Every web address of the entity',
    types: BOTH,
    queryField: 'url',
    aliases: ['urls'],
    extract: (e: Entity) => strings(e.allUris ?? []),
  },
  {
    id: 'emailAddresses',
    name: 'E-mail addresses',
    description: 'Contact e-mail addresses (queries: Person only)',
    types: BOTH,
    queryField: 'email',
    aliases: ['email', 'mail', 'emailaddress', 'emails'],
    extract: (e: Entity) => strings((e.emailAddresses ?? []).map((c) => c?.contactString)),
  },
  {
    id: 'phoneNumbers',
    name: 'Phone numbers',
    description: 'Phone numbers as written',
    types: BOTH,
    queryField: 'phone',
    aliases: ['phone', 'telephone', 'tel', 'phonenumber', 'mobile'],
    extract: (e: Entity) => strings((e.phoneNumbers ?? []).map((p) => p?.string)),
  },
  {
    id: 'location',
    name: 'Location',
    description: 'City, region and country in one line',
    types: BOTH,
    queryField: 'location',
    aliases: ['address', 'place', 'headquarters'],
    extract: (e: Entity) => strings([locationLine(e.location)]),
  },
  {
    id: 'location.city.name',
    name: 'City',
    description: 'City of the current location',
    types: BOTH,
    queryField: 'location',
    aliases: ['city', 'town'],
    extract: locationPart('city'),
  },
  {
    id: 'location.region.name',
    name: 'Region',
    description: 'Region (state, province) of the current location',
    types: BOTH,
    queryField: 'location',
    aliases: ['region', 'state', 'province'],
    extract: locationPart('region'),
  },
  {
    id: 'location.country.name',
    name: 'Country',
    description: 'Country of the current location',
    types: BOTH,
    queryField: 'location',
    aliases: ['country', 'nation'],
    extract: locationPart('country'),
  },
  {
    id: 'description',
    name: 'Description',
    description: 'A sentence about the entity',
    types: BOTH,
    queryField: 'description',
    extract: (e: Entity) => strings([e.description]),
  },
  {
    id: 'nbEmployees',
    name: 'Employees',
    description: 'Number of employees',
    types: ORGANIZATION,
    aliases: ['employees', 'staff', 'size'],
    extract: (e: Entity) => number(e.nbEmployees),
  },
  {
    id: 'foundingDate',
    name: 'Founding date',
    description: 'When the organization was founded',
    types: ORGANIZATION,
    aliases: ['founded', 'inception'],
    extract: (e: Entity) => date(e.foundingDate),
  },
  {
    id: 'dissolutionDate',
    name: 'Dissolution date',
    description: 'When the organization ceased to exist',
    types: ORGANIZATION,
    extract: (e: Entity) => date(e.dissolutionDate),
  },
  {
    id: 'industries',
    name: 'Industries',
    description: 'Industries the organization works in',
    types: ORGANIZATION,
    aliases: ['industry', 'sector'],
    extract: (e: Entity) => strings(e.industries ?? []),
  },
  {
    id: 'ipRanges',
    name: 'IP ranges',
    description: 'Address ranges the organization owns (queries: an IP address in them)',
    types: ORGANIZATION,
    queryField: 'ip',
    aliases: ['ip', 'ipaddress'],
    extract: (e: Entity) => strings(e.ipRanges ?? []),
  },
  {
    id: 'employments',
    name: 'Employers',
    description: 'Organizations the person works or worked for',
    types: PERSON,
    queryField: 'employer',
    aliases: ['employer', 'company', 'organization', 'organisation', 'workplace'],
    valueType: 'Organization',
    extract: (e: Entity) => linked((e.employments ?? []).map((job) => job?.employer)),
  },
  {
    id: 'employments.title',
    name: 'Job titles',
    description: 'Titles the person holds or held',
    types: PERSON,
    queryField: 'title',
    aliases: ['title', 'jobtitle', 'position', 'role'],
    extract: (e: Entity) => strings((e.employments ?? []).map((job) => job?.title)),
  },
  {
    id: 'educations',
    name: 'Schools',
    description: 'Where the person studied',
    types: PERSON,
    queryField: 'school',
    aliases: ['school', 'university', 'education', 'college'],
    valueType: 'Organization',
    extract: (e: Entity) => linked((e.educations ?? []).map((study) => study?.institution)),
  },
  {
    id: 'birthDate',
    name: 'Birth date',
    description: 'When the person was born',
    types: PERSON,
    aliases: ['born', 'birthday'],
    extract: (e: Entity) => date(e.birthDate),
  },
  {
    id: 'gender',
    name: 'Gender',
    description: 'Gender as the sources state it',
    types: PERSON,
    extract: (e: Entity) => strings([e.gender?.normalizedValue]),
  },
  {
    id: 'origins',
    name: 'Sources',
    description: 'Pages the facts about the entity come from',
    types: BOTH,
    aliases: ['source', 'sources'],
    extract: (e: Entity) => strings(e.origins ?? []),
  },
] satisfies ReconcileProperty[]);

/** A property id or alias as compared: lowercase letters and digits only ("E-mail" → `email`). */
function folded(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9.]/g, '');
}

const BY_NAME = new Map<string, ReconcileProperty>();
for (const property of PROPERTIES) BY_NAME.set(folded(property.id), property);
// Aliases after every id, so that an id always wins over another property's alias.
for (const property of PROPERTIES)
  for (const alias of property.aliases ?? []) if (!BY_NAME.has(alias)) BY_NAME.set(alias, property);

/** The property a client names by its id or an alias, any case or punctuation; else `undefined`. */
export function propertyOf(pid: string): ReconcileProperty | undefined {
  return BY_NAME.get(folded(pid));
}

/** The properties that `type` carries (every property when `type` is undefined). */
export function propertiesOfType(type: EntityType | undefined): ReconcileProperty[] {
  return PROPERTIES.filter((p) => type === undefined || p.types.includes(type));
}
