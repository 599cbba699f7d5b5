import type {
  ContactString,
  DateFact,
  Education,
  Employment,
  Location,
  NameDetail,
  PhoneNumber,
} from '../kg/index.ts';
import { pageTitle } from './article-extractor.ts';
import { collectContactFacts, kgHomepage } from './contact-facts.ts';
import {
  contactValues,
  imageList,
  mergeEmails,
  mergeLocations,
  mergePhones,
  type SocialUris,
  UriCollector,
} from './entity-facts.ts';
import type { PageContext } from './page-context.ts';
import { PERSON_TYPES } from './schema-types.ts';
import { dereference, metaContent, textValue, urlValue, values } from './structured-data.ts';
import { toDateFact } from './value-normalizers.ts';

/** Fields of a `person` object, named and shaped like the knowledge graph's Person. */
export type PersonFields = {
  name?: string;
  nameDetail?: NameDetail;
  description?: string;
  /** Host of the person's own site, without scheme or `www.` (KG form), when declared. */
  homepageUri?: string;
  /** Portrait image URL. */
  image?: string;
  images?: { url: string; primary?: boolean }[];
  phoneNumbers?: PhoneNumber[];
  emailAddresses?: ContactString[];
  location?: Location;
  locations?: Location[];
  employments?: Employment[];
  educations?: Education[];
  birthDate?: DateFact;
  deathDate?: DateFact;
  gender?: { normalizedValue: string };
  allUris?: string[];
} & SocialUris;

/** First/middle/last names from structured parts, or split from the full name. */
export function nameDetailOf(
  name: string | undefined,
  parts: Record<string, unknown>,
): NameDetail | undefined {
  const detail: NameDetail = {};
  const first = textValue(parts.givenName);
  const last = textValue(parts.familyName);
  const middle = values(parts.additionalName)
    .map((v) => textValue(v))
    .filter((v): v is string => Boolean(v));
  const prefix = textValue(parts.honorificPrefix);
  const suffix = textValue(parts.honorificSuffix);
  if (first || last) {
    if (first) detail.firstName = first;
    if (middle.length > 0) detail.middleName = middle;
    if (last) detail.lastName = last;
  } else if (name) {
    const tokens = name
      .replace(/^(dr|mr|mrs|ms|prof)\.?\s+/i, '')
      .split(/\s+/)
      .filter(Boolean);
    if (tokens.length >= 1) detail.firstName = tokens[0];
    if (tokens.length >= 2) detail.lastName = tokens[tokens.length - 1];
    if (tokens.length >= 3) detail.middleName = tokens.slice(1, -1);
  }
  if (prefix) detail.prefix = prefix;
  if (suffix) detail.suffix = suffix;
  return Object.keys(detail).length > 0 ? detail : undefined;
}

function normalizeGender(raw: string | undefined): string | undefined {
  const value = raw?.replace(/^https?:\/\/(www\.)?schema\.org\//i, '').toLowerCase();
  if (!value) return undefined;
  if (value === 'male' || value === 'm') return 'Male';
  if (value === 'female' || value === 'f') return 'Female';
  return undefined;
}

/**
 * Where the person works now: each employer (`worksFor`, else `affiliation`) with the job title
 * in the same position, or the first title alone when no employer is named.
 */
function employmentsOf(props: Record<string, unknown>, data: PageContext['data']): Employment[] {
  const employments: Employment[] = [];
  const titles = values(props.jobTitle)
    .map((t) => textValue(t))
    .filter((t): t is string => Boolean(t));
  const employers = values(props.worksFor ?? props.affiliation)
    .map((e) => textValue(dereference(e, data)))
    .filter((e): e is string => Boolean(e));
  if (employers.length > 0) {
    employers.forEach((employer, index) => {
      const title = titles[index] ?? (index === 0 ? titles[0] : undefined);
      employments.push({ employer: { name: employer }, ...(title ? { title } : {}), isCurrent: true });
    });
  } else if (titles.length > 0) {
    employments.push({ title: titles[0], isCurrent: true });
  }
  return employments;
}

/**
 * The `person` extractor: schema.org Person from JSON-LD or microdata (name parts, job title
 * and employer, schools, birth date, gender, portrait), OpenGraph `profile:` tags, and contact
 * facts found on the page (phones, e-mails, `<address>` blocks, social profile links).
 */
export function extractPerson(context: PageContext): PersonFields {
  const data = context.data;
  const node = context.mainNode(PERSON_TYPES);
  const props = node?.properties ?? {};
  const facts = collectContactFacts(context.page);
  const fields: PersonFields = {};

  const ogName = [metaContent(data, 'profile:first_name'), metaContent(data, 'profile:last_name')]
    .filter(Boolean)
    .join(' ');
  const name = textValue(props.name) ?? (ogName || undefined) ?? pageTitle(context);
  if (name) fields.name = name;
  const nameDetail = nameDetailOf(name, {
    givenName: props.givenName ?? metaContent(data, 'profile:first_name'),
    familyName: props.familyName ?? metaContent(data, 'profile:last_name'),
    additionalName: props.additionalName,
    honorificPrefix: props.honorificPrefix,
    honorificSuffix: props.honorificSuffix,
  });
  if (nameDetail) fields.nameDetail = nameDetail;
  const description =
    textValue(props.description) ?? metaContent(data, 'og:description', 'description', 'twitter:description');
  if (description) fields.description = description;

  const ownSite = urlValue(props.url, context.baseUrl);
  const homepage =
    ownSite && kgHomepage(ownSite) !== kgHomepage(context.page.url) ? kgHomepage(ownSite) : undefined;
  if (homepage) fields.homepageUri = homepage;
  const image =
    urlValue(props.image, context.baseUrl) ?? urlValue(metaContent(data, 'og:image'), context.baseUrl);
  if (image) {
    fields.image = image;
    fields.images = imageList([image]);
  }

  const phones = mergePhones(contactValues(props, 'telephone'), facts.phoneNumbers, context.page.url);
  if (phones.length > 0) fields.phoneNumbers = phones;
  const emails = mergeEmails(contactValues(props, 'email'), facts.emailAddresses);
  if (emails.length > 0) fields.emailAddresses = emails;
  const locations = mergeLocations(
    [...values(props.address), ...values(props.homeLocation), ...values(props.workLocation)],
    facts,
    data,
  );
  if (locations.length > 0) {
    fields.location = locations[0];
    fields.locations = locations;
  }

  const employments = employmentsOf(props, data);
  if (employments.length > 0) fields.employments = employments;
  const educations = values(props.alumniOf)
    .map((school) => textValue(dereference(school, data)))
    .filter((s): s is string => Boolean(s))
    .map((s) => ({ institution: { name: s } }));
  if (educations.length > 0) fields.educations = educations;
  const birthDate = toDateFact(textValue(props.birthDate));
  if (birthDate) fields.birthDate = birthDate;
  const deathDate = toDateFact(textValue(props.deathDate));
  if (deathDate) fields.deathDate = deathDate;
  const gender = normalizeGender(textValue(props.gender) ?? metaContent(data, 'profile:gender'));
  if (gender) fields.gender = { normalizedValue: gender };

  const uris = new UriCollector();
  uris.addHomepage(homepage);
  for (const link of values(props.sameAs))
    uris.add(typeof link === 'string' ? link : urlValue(link, context.baseUrl));
  // Links elsewhere on a profile page are usually the site's own (an employer's accounts), so
  // they count only when the page declares no Person of its own.
  if (!node) for (const profile of facts.socialProfiles) uris.add(profile.url);
  Object.assign(fields, uris.socialUris());
  const all = uris.allUris();
  if (all.length > 0) fields.allUris = all;
  return fields;
}
