export type {
  ContactString,
  DateFact,
  Education,
  Employment,
  Entity,
  EntityType,
  Image,
  LinkedEntity,
  Location,
  NameDetail,
  NonCanonicalFact,
  PhoneNumber,
} from './entity.ts';
export { ENTITY_TYPES, isEntityType } from './entity.ts';
export * from './normalize/index.ts';
