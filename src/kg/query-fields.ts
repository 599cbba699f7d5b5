/**
 * The fields of a query — an enhance request's matched fields, a bulk job's record — in one
 * table: the enhance parser reads each field's kind from it (a `list` field may be given several
 * times), exports read its order (`exportquery` and the default query columns,
 * docs/api.md#export-columns), and the bulk CLI maps CSV columns onto it (with `customId`, which
 * identifies a record to its submitter and is matched on nothing).
 */

/** How a query field is given: the entity type, a list of strings, or one string. */
export type QueryFieldKind = 'type' | 'list' | 'scalar';

/** Every query field and its kind, in the order exports show them. */
export const QUERY_FIELD_KINDS = Object.freeze({
  type: 'type',
  name: 'list',
  url: 'list',
  email: 'list',
  phone: 'scalar',
  location: 'scalar',
  employer: 'scalar',
  title: 'scalar',
  school: 'scalar',
  description: 'scalar',
  ip: 'scalar',
  id: 'scalar',
} as const satisfies Record<string, QueryFieldKind>);

export type QueryField = keyof typeof QUERY_FIELD_KINDS;

/** The query fields, in export order. */
export const QUERY_FIELDS: readonly QueryField[] = Object.freeze(
  Object.keys(QUERY_FIELD_KINDS) as QueryField[],
);

/** The query fields given as lists (`name`, `url`, `email`). */
export type QueryListField = {
  [F in QueryField]: (typeof QUERY_FIELD_KINDS)[F] extends 'list' ? F : never;
}[QueryField];
/** The query fields given as one string. */
export type QueryScalarField = {
  [F in QueryField]: (typeof QUERY_FIELD_KINDS)[F] extends 'scalar' ? F : never;
}[QueryField];

/** The fields of `kind`, in export order. */
function fieldsOf<F extends QueryField>(kind: QueryFieldKind): readonly F[] {
  return Object.freeze(QUERY_FIELDS.filter((field) => QUERY_FIELD_KINDS[field] === kind) as F[]);
}

export const QUERY_LIST_FIELDS: readonly QueryListField[] = fieldsOf<QueryListField>('list');
export const QUERY_SCALAR_FIELDS: readonly QueryScalarField[] = fieldsOf<QueryScalarField>('scalar');

/** A bulk record's own field: the submitter's id of the record, echoed, never matched. */
export const CUSTOM_ID_FIELD = 'customId';
/** Every field a query record may carry besides its options: the query fields and `customId`. */
export const QUERY_RECORD_FIELDS: readonly string[] = Object.freeze([...QUERY_FIELDS, CUSTOM_ID_FIELD]);
