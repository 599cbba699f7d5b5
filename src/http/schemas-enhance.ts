import { Type } from 'typebox';

/**
 * Route schemas of the enhance endpoints. They document the API (OpenAPI at /openapi.json) and
 * coerce wire types; the semantic checks (Person-only fields, identifying fields, ranges) are in
 * `enhance/query.ts`, shared with bulk records, so every source gets the same 400 messages.
 */

const text = (description: string) => Type.Optional(Type.String({ description }));
const list = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
const flag = (description: string) =>
  Type.Optional(Type.String({ description: `${description} true or false (default false).` }));
const stringOrList = (description: string) =>
  Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));
const flagBody = (description: string) =>
  Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description }));

const queryFields = {
  token: text('API token (or send `Authorization: Bearer <token>`).'),
  type: Type.String({ description: 'Person or Organization (required).' }),
  id: text('Entity id: returns that entity with score 1.'),
  name: list('Names (repeat the parameter for several).'),
  url: list('Origin or homepage URLs (repeat for several).'),
  email: list('E-mail addresses (Person only).'),
  phone: text('Phone number, any format; the location helps to read national numbers.'),
  employer: text('Employer name (Person only).'),
  title: text('Job title (Person only).'),
  school: text('School (Person only).'),
  location: text('Location: city, region and/or country.'),
  description: text('Free-text description.'),
  ip: text('IP address (matched against Organizations’ IP ranges).'),
  customId: text('Caller-defined id, echoed back.'),
};

const optionFields = {
  size: Type.Optional(Type.Integer({ description: 'Maximum number of results, 1–100 (default 1).' })),
  threshold: Type.Optional(
    Type.Number({ description: 'Minimum score of a hit, 0–1 (default: the documented default threshold).' }),
  ),
  refresh: flag('Refetch the origins of the matched entity and return it rebuilt from them.'),
  search: Type.Optional(
    Type.String({
      description:
        'Search the web: ON (= true) merges search evidence with the graph, FALLBACK searches when the graph has no hit, SEARCHONLY ignores the graph, OFF (= false, the default).',
    }),
  ),
  nonCanonicalFacts: flag('Also return values that lost when sources disagreed.'),
  jsonmode: Type.Optional(Type.String({ description: '`extended` adds the origins of every fact.' })),
  filter: text('`;`-separated entity paths to keep (dot paths or JSONPath).'),
  filterExclude: text('`;`-separated entity paths to remove (dot paths or JSONPath).'),
};

export const enhanceQuerystring = Type.Object(
  { ...queryFields, ...optionFields },
  { additionalProperties: true },
);

const { id: _id, description: _description, ...combineQueryFields } = queryFields;
const { size: _size, ...combineOptionFields } = optionFields;
export const combineQuerystring = Type.Object(
  {
    ...combineQueryFields,
    email: text('E-mail address.'),
    type: Type.String({ description: 'Person (the only type combine accepts).' }),
    ...combineOptionFields,
  },
  { additionalProperties: true },
);

export const enhanceBody = Type.Object(
  {
    type: Type.String({ description: 'Person or Organization (required).' }),
    id: text('Entity id.'),
    name: stringOrList('A name or a list of names.'),
    url: stringOrList('A URL or a list of URLs.'),
    email: stringOrList('An e-mail address or a list (Person only).'),
    phone: text('Phone number.'),
    employer: text('Employer name (Person only).'),
    title: text('Job title (Person only).'),
    school: text('School (Person only).'),
    location: text('Location.'),
    description: text('Description.'),
    ip: text('IP address.'),
    customId: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'Echoed back.' })),
    size: Type.Optional(Type.Integer({ description: 'Maximum number of results, 1–100.' })),
    threshold: Type.Optional(Type.Number({ description: 'Minimum score, 0–1.' })),
    refresh: flagBody('Refetch the origins of the matched entity.'),
    search: flagBody('Search the web: true/false or ON, OFF, SEARCHONLY, FALLBACK.'),
    nonCanonicalFacts: flagBody('Return non-canonical facts.'),
    jsonmode: text('`extended` adds fact origins.'),
    filter: text('Entity paths to keep.'),
    filterExclude: text('Entity paths to remove.'),
  },
  { additionalProperties: true },
);

const searchCandidate = Type.Object(
  {
    mlScore: Type.Number(),
    baseMlScore: Type.Number(),
    debugInfo: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export const enhanceResponse = Type.Object(
  {
    version: Type.Integer(),
    hits: Type.Integer(),
    kgversion: Type.String(),
    request_ctx: Type.Object({}, { additionalProperties: true }),
    data: Type.Array(
      Type.Object(
        {
          score: Type.Number({
            description: 'Calibrated probability that this is the entity the query describes.',
          }),
          esscore: Type.Number({ description: 'Raw candidate-retrieval score.' }),
          entity: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
        },
        { additionalProperties: true },
      ),
    ),
    errors: Type.Array(Type.String()),
    searchInfo: Type.Record(Type.String(), searchCandidate),
  },
  { additionalProperties: true },
);

export const generalError = Type.Object(
  { code: Type.Integer(), message: Type.String(), error: Type.Boolean() },
  { additionalProperties: true },
);
export const authError = Type.Object(
  { code: Type.Integer(), message: Type.String(), requestId: Type.String() },
  { additionalProperties: true },
);

/** Error responses every enhance endpoint documents. */
export const enhanceErrorResponses = {
  400: generalError,
  401: authError,
  413: generalError,
  429: generalError,
  500: generalError,
};
