// What `serve export` writes, as a type of its own: the library's declarations name it without
// reaching the store's (and so better-sqlite3's) types.

export interface ExportOptions {
  /** Include the integrations' headers (API keys, bearer tokens). Off by default. */
  withSecrets: boolean;
}

/** A seed document: `{"accounts": [...]}`, ready for `JSON.stringify`. */
export interface SeedDocument {
  accounts: Record<string, unknown>[];
}
