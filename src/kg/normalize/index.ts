/** Normalisers (pure): names, domains, e-mails, phones and places, as matching compares them. */
export {
  hostAncestors,
  looksLikeWebAddress,
  type NormalizedDomain,
  normalizeDomain,
  sharedHostProfile,
} from './domain.ts';
export { isFreeMailDomain, isRoleMailbox, type NormalizedEmail, normalizeEmail } from './email.ts';
export {
  abbreviatedOrganizationWord,
  canonicalOrganizationToken,
  isGenericOrganizationWord,
  isInstitutionWord,
  isLegalSuffix,
  isOrganizationStopword,
  looksLikeAcronym,
  type NameWithOtherName,
  type NameWithPlace,
  type NormalizedOrganizationName,
  normalizeOrganizationName,
  organizationAcronyms,
  splitOtherName,
  splitTrailingPlace,
} from './organization-name.ts';
export {
  areGivenNameVariants,
  canonicalGivenName,
  hasGivenNameVariants,
  isGivenNameForm,
  isPersonNameNoise,
  isListedGivenName,
  isSurnameConjunction,
  type NormalizedPersonName,
  normalizePersonName,
} from './person-name.ts';
export { withoutTitleQualifiers } from './job-title.ts';
export { normalizePhone, type PhoneReading, readPhone } from './phone.ts';
export {
  alpha3Country,
  cityName,
  comparePlaces,
  countryCode,
  type EntityPlaces,
  entityPlaces,
  isPlaceName,
  type ParsedLocation,
  type PlaceComparison,
  type PlaceRef,
  parseLocation,
  regionName,
} from './place.ts';
export { foldText, sortedDistinct, textTokens } from './text.ts';
export {
  type NameAddition,
  splitBirthName,
  splitOrganizationAddition,
  withoutPronouns,
} from './name-additions.ts';
