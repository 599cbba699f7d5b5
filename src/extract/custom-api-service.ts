import { randomBytes } from 'node:crypto';
import { approximateBytes } from '../approximate-bytes.ts';
import { ByteBoundedCache } from '../byte-bounded-cache.ts';
import { InvalidParameterError, NotFoundError } from '../errors.ts';
import type { CustomApiRecord, CustomApiStore } from '../storage/index.ts';
import { ALL_APIS } from './extract-page.ts';
import { apiNameOf, type CompiledRuleset, compileRuleset, parseRuleset, type Ruleset } from './ruleset.ts';

/** A rule set as listed: the normalised definition plus its hash. */
export type CustomApiListing = Ruleset & { readonly hash: string };

export { ALL_APIS };

function newHash(): string {
  return randomBytes(12).toString('hex');
}

/**
 * The Custom API use cases (docs/api.md#rule-sets): create or update rule sets (identity is the
 * exact (api, urlPattern) pair; an update replaces the rules wholesale and keeps the hash), replace
 * all of a token's rule sets, list and delete them, and find the compiled rule sets an
 * extraction must apply. Rule sets belong to their token; other tokens never see them.
 */
export class CustomApiService {
  readonly #store: CustomApiStore;
  /** Compiled rule sets by hash, valid while `updatedAt` is unchanged. */
  /**
   * Compiled rule sets by hash, bounded by memory (a rule set may be a few hundred bytes or
   * megabytes): the compiled form is counted as four times the stored JSON's size.
   */
  readonly #compiled = new ByteBoundedCache<
    string,
    { updatedAt: number; ruleset: CompiledRuleset; bytes: number }
  >(32 * 1024 * 1024, (entry) => entry.bytes);

  constructor(store: CustomApiStore) {
    this.#store = store;
  }

  /**
   * Creates or updates from a request body: one rule set object, or an array that replaces all
   * of the token's rule sets. Validates everything before storing anything. Returns the hashes
   * of the stored rule sets, in body order.
   */
  async save(tokenId: string, body: unknown): Promise<{ hashes: string[] }> {
    if (Array.isArray(body)) {
      const parsed = body.map((item, index) => parseRuleset(item, `[${index}]`));
      const seen = new Map<string, number>();
      parsed.forEach((ruleset, index) => {
        const key = `${ruleset.definition.api}\n${ruleset.definition.urlPattern}`;
        const first = seen.get(key);
        if (first !== undefined) {
          throw new InvalidParameterError(
            `[${index}]`,
            `Invalid parameter '[${index}]': repeats the api and urlPattern of item [${first}]`,
          );
        }
        seen.set(key, index);
      });
      const records = await this.#store.replaceAll(
        tokenId,
        parsed.map(({ definition }) => ({
          api: definition.api,
          urlPattern: definition.urlPattern,
          hash: newHash(),
          ruleset: definition as unknown as Record<string, unknown>,
        })),
      );
      return { hashes: records.map((record) => record.hash) };
    }
    const { definition } = parseRuleset(body);
    const record = await this.#store.save(tokenId, {
      api: definition.api,
      urlPattern: definition.urlPattern,
      hash: newHash(),
      ruleset: definition as unknown as Record<string, unknown>,
    });
    return { hashes: [record.hash] };
  }

  /** The token's rule sets, in creation order, each with its hash. */
  async list(tokenId: string): Promise<CustomApiListing[]> {
    return (await this.#store.list(tokenId)).map(toListing);
  }

  /**
   * Deletes the token's rule set identified by `{api, urlPattern}` (the api in either
   * `/api/<name>` or `<name>` form). 404 when the token has no such rule set.
   */
  async delete(tokenId: string, body: unknown): Promise<CustomApiListing> {
    const object = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<
      string,
      unknown
    >;
    if (typeof object.api !== 'string' || object.api.trim() === '') {
      throw new InvalidParameterError('api', "Invalid parameter 'api': is required to delete a Custom API");
    }
    if (typeof object.urlPattern !== 'string' || object.urlPattern === '') {
      throw new InvalidParameterError(
        'urlPattern',
        "Invalid parameter 'urlPattern': is required to delete a Custom API",
      );
    }
    const api = `/api/${apiNameOf(object.api)}`;
    const deleted = await this.#store.delete(tokenId, api, object.urlPattern);
    if (!deleted) {
      throw new NotFoundError(`No Custom API with api "${api}" and urlPattern "${object.urlPattern}"`);
    }
    this.#compiled.delete(deleted.hash);
    return toListing(deleted);
  }

  /** Whether the token defines rule sets for the API `name` (which is then a valid API). */
  async definesApi(tokenId: string, name: string): Promise<boolean> {
    return name !== ALL_APIS && (await this.#store.listByApi(tokenId, [`/api/${name}`])).length > 0;
  }

  /**
   * The token's compiled rule sets for any of the API names `names`, plus those for `all`, in
   * creation order. Compilation is cached per rule set until it changes.
   */
  async rulesetsFor(tokenId: string, names: readonly string[]): Promise<CompiledRuleset[]> {
    const apis = [...new Set([...names, ALL_APIS])].map((name) => `/api/${name}`);
    return (await this.#store.listByApi(tokenId, apis)).map((record) => this.#compile(record));
  }

  #compile(record: CustomApiRecord): CompiledRuleset {
    const cached = this.#compiled.get(record.hash);
    if (cached && cached.updatedAt === record.updatedAt) return cached.ruleset;
    let ruleset: CompiledRuleset;
    try {
      ruleset = compileRuleset(record.ruleset as unknown as Ruleset);
    } catch (error) {
      // Saved before a rule changed (e.g. a lookahead, refused since patterns run on RE2).
      throw new InvalidParameterError(
        'customApi',
        `The Custom API ${record.api} with urlPattern "${record.urlPattern}", saved earlier, is no longer valid: ${(error as Error).message}. Save it again corrected, or delete it`,
      );
    }
    const bytes = 4 * approximateBytes(record.ruleset);
    this.#compiled.set(record.hash, { updatedAt: record.updatedAt, ruleset, bytes });
    return ruleset;
  }
}

function toListing(record: CustomApiRecord): CustomApiListing {
  return { hash: record.hash, ...(record.ruleset as unknown as Ruleset) };
}
