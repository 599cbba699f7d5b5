/** One versioned schema migration of the embedded store (see index.ts for the version ranges). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}
