/** A set of schema.org type names (only membership is asked). */
export interface TypeFamily {
  has(type: string): boolean;
}

/**
 * schema.org type families the built-in extractors and page-type detection recognise
 * (bare type names, as `structured-data.ts` normalises them).
 */

export const ARTICLE_TYPES: TypeFamily = new Set([
  'Article',
  'NewsArticle',
  'BlogPosting',
  'Blog',
  'Report',
  'ScholarlyArticle',
  'TechArticle',
  'AnalysisNewsArticle',
  'OpinionNewsArticle',
  'ReportageNewsArticle',
  'ReviewNewsArticle',
  'BackgroundNewsArticle',
  'AskPublicNewsArticle',
  'SatiricalArticle',
  'LiveBlogPosting',
  'SocialMediaPosting',
  'MedicalScholarlyArticle',
  'APIReference',
  'HowTo',
  'Recipe',
]);

export const PRODUCT_TYPES: TypeFamily = new Set([
  'Product',
  'ProductModel',
  'IndividualProduct',
  'SomeProducts',
  'ProductGroup',
  'Vehicle',
  'Car',
  'Motorcycle',
  'Book',
  'DietarySupplement',
  'Drug',
]);

const ORGANIZATION_NAMES = new Set([
  'Organization',
  'Corporation',
  'LocalBusiness',
  'NGO',
  'EducationalOrganization',
  'CollegeOrUniversity',
  'HighSchool',
  'MiddleSchool',
  'ElementarySchool',
  'Preschool',
  'School',
  'GovernmentOrganization',
  'MedicalOrganization',
  'SportsOrganization',
  'SportsTeam',
  'NewsMediaOrganization',
  'OnlineBusiness',
  'OnlineStore',
  'Airline',
  'Consortium',
  'FundingScheme',
  'LibrarySystem',
  'PerformingGroup',
  'MusicGroup',
  'TheaterGroup',
  'DanceGroup',
  'Project',
  'ResearchProject',
  'FundingAgency',
  'ResearchOrganization',
  'WorkersUnion',
  'PoliticalParty',
  'Cooperative',
  'SearchRescueOrganization',
  'Hospital',
  'Dentist',
  'Pharmacy',
  'Physician',
  'Restaurant',
  'Store',
  'Hotel',
  'LegalService',
  'Attorney',
  'Notary',
  'FinancialService',
  'BankOrCreditUnion',
  'InsuranceAgency',
  'RealEstateAgent',
  'TravelAgency',
  'AutomotiveBusiness',
  'ProfessionalService',
  'HomeAndConstructionBusiness',
  'EntertainmentBusiness',
  'FoodEstablishment',
  'HealthAndBeautyBusiness',
  'LodgingBusiness',
  'SportsActivityLocation',
  'EmploymentAgency',
  'InternetCafe',
  'Library',
  'RadioStation',
  'TelevisionStation',
  'ChildCare',
  'DryCleaningOrLaundry',
  'EmergencyService',
  'GovernmentOffice',
  'ArchiveOrganization',
  'Brand',
]);

/** Organization and its subtypes (the long tail of LocalBusiness subtypes by suffix). */
export const ORGANIZATION_TYPES: TypeFamily = {
  has: (type) =>
    (ORGANIZATION_NAMES.has(type) && type !== 'Brand') ||
    /(Business|Store|Organization|Agency|Service|Restaurant|Company|Shop|Clinic|School)$/.test(type),
};

export const PERSON_TYPES: TypeFamily = new Set(['Person', 'Patient']);

/** Page types that say "this page is about the entity in its mainEntity". */
export const PAGE_TYPES: TypeFamily = new Set([
  'WebPage',
  'ProfilePage',
  'AboutPage',
  'ContactPage',
  'ItemPage',
  'CollectionPage',
  'QAPage',
  'FAQPage',
  'MedicalWebPage',
  'RealEstateListing',
  'SearchResultsPage',
  'CheckoutPage',
]);
