import type { ContactString, DateFact, LinkedEntity, Location, PhoneNumber } from '../kg/index.ts';
import { siteNameOf } from './article-extractor.ts';
import { collectContactFacts, kgHomepage } from './contact-facts.ts';
import {
  type ContactProvenance,
  contactProvenance,
  contactValues,
  imageList,
  mergeEmails,
  mergeLocations,
  mergePhones,
  type SocialUris,
  UriCollector,
} from './entity-facts.ts';
import type { PageContext } from './page-context.ts';
import { isEntryPath, pageHeading } from './page-type.ts';
import { ORGANIZATION_TYPES } from './schema-types.ts';
import { dereference, metaContent, propertiesOf, textValue, urlValue, values } from './structured-data.ts';
import { toDateFact } from './value-normalizers.ts';

/** Fields of an `organization` object, named and shaped like the knowledge graph's Organization. */
export type OrganizationFields = {
  name?: string;
  allNames?: string[];
  description?: string;
  /** Host of the organization's site, without scheme or `www.` (KG form). */
  homepageUri?: string;
  /** Logo image URL. */
  logo?: string;
  images?: { url: string; primary?: boolean }[];
  phoneNumbers?: PhoneNumber[];
  emailAddresses?: ContactString[];
  location?: Location;
  locations?: Location[];
  foundingDate?: DateFact;
  nbEmployees?: number;
  founders?: LinkedEntity[];
  parentCompany?: LinkedEntity;
  allUris?: string[];
  /** Where on the page each contact was found (see `ContactProvenance`). */
  provenance?: ContactProvenance;
} & SocialUris;

function employeeCount(value: unknown): number | undefined {
  const props = propertiesOf(value);
  const raw = props ? (props.value ?? props.maxValue ?? props.minValue) : value;
  const text = textValue(raw)?.replace(/[,\s]/g, '');
  const count = text ? Number.parseInt(text, 10) : Number.NaN;
  return Number.isFinite(count) && count > 0 ? count : undefined;
}

/**
 * The `organization` extractor: schema.org Organization (and subtypes) from JSON-LD or
 * microdata, OpenGraph site data, and contact facts found anywhere on the page (phones,
 * e-mails, `<address>` blocks, social profile links, a logo).
 */
export function extractOrganization(context: PageContext): OrganizationFields {
  const data = context.data;
  const node = context.mainNode(ORGANIZATION_TYPES);
  const props = node?.properties ?? {};
  const facts = collectContactFacts(context.page);
  const fields: OrganizationFields = {};

  // The site's own organization (its home, about or contact page) may be named by the site;
  // another page (a directory entry, a profile) is named by its heading.
  const owner = isEntryPath(context.page.url);
  const heading = owner ? undefined : pageHeading(context);
  const name = textValue(props.name) ?? textValue(props.legalName) ?? heading ?? siteNameOf(context);
  if (name) fields.name = name;
  const names = new Set<string>();
  for (const value of [props.name, props.legalName, props.alternateName]) {
    for (const item of values(value)) {
      const text = textValue(item);
      if (text) names.add(text);
    }
  }
  if (name) names.add(name);
  if (names.size > 0) fields.allNames = [...names];
  const description =
    textValue(props.description) ?? metaContent(data, 'og:description', 'description', 'twitter:description');
  if (description) fields.description = description;

  const homepage = kgHomepage(urlValue(props.url, context.baseUrl) ?? context.page.url);
  if (homepage) fields.homepageUri = homepage;
  const logo = urlValue(props.logo, context.baseUrl) ?? facts.logo;
  if (logo) fields.logo = logo;
  const images = imageList([
    urlValue(props.image, context.baseUrl),
    logo,
    urlValue(metaContent(data, 'og:image'), context.baseUrl),
  ]);
  if (images.length > 0) fields.images = images;

  // The site chrome's contacts are the site owner's: they count only on the owner's own pages.
  const structuredPhones = contactValues(props, 'telephone');
  const structuredEmails = contactValues(props, 'email');
  const pagePhones = owner ? [...facts.phoneNumbers, ...facts.siteWide.phoneNumbers] : facts.phoneNumbers;
  const pageEmails = owner
    ? [...facts.emailAddresses, ...facts.siteWide.emailAddresses]
    : facts.emailAddresses;
  const phones = mergePhones(structuredPhones, pagePhones, context.page.url);
  if (phones.length > 0) fields.phoneNumbers = phones;
  const emails = mergeEmails(structuredEmails, pageEmails);
  if (emails.length > 0) fields.emailAddresses = emails;
  const provenance = contactProvenance(phones, emails, facts, {
    phones: mergePhones(structuredPhones, [], context.page.url),
    emails: mergeEmails(structuredEmails, []),
  });
  if (provenance) fields.provenance = provenance;
  const locations = mergeLocations([...values(props.address), ...values(props.location)], facts, data);
  if (locations.length > 0) {
    fields.location = locations[0];
    fields.locations = locations;
  }
  const founded = toDateFact(textValue(props.foundingDate));
  if (founded) fields.foundingDate = founded;
  const employees = employeeCount(props.numberOfEmployees);
  if (employees !== undefined) fields.nbEmployees = employees;
  const founders = values(props.founder ?? props.founders)
    .map((founder) => textValue(dereference(founder, data)))
    .filter((n): n is string => Boolean(n))
    .map((n) => ({ name: n }));
  if (founders.length > 0) fields.founders = founders;
  const parent = textValue(dereference(props.parentOrganization, data));
  if (parent) fields.parentCompany = { name: parent };

  const uris = new UriCollector();
  uris.addHomepage(homepage);
  for (const link of values(props.sameAs))
    uris.add(typeof link === 'string' ? link : urlValue(link, context.baseUrl));
  for (const profile of facts.socialProfiles) uris.add(profile.url);
  if (owner) for (const profile of facts.siteWide.socialProfiles) uris.add(profile.url);
  Object.assign(fields, uris.socialUris());
  const all = uris.allUris();
  if (all.length > 0) fields.allUris = all;
  return fields;
}
