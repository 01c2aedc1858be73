// The names the service answers to (SPEC §12): exectl's own, and those of the real service
// that `exectl serve --compat exe.dev` adds beside them. This is THE one table of those aliases:
// code asks it for names (`dialectsFor(compat)`), it never branches on the compat mode itself.

/** One set of names for the same things. */
export interface Dialect {
  /** The `--compat` value that turns it on; null for exectl's own names (always on). */
  readonly compat: string | null;
  /** Read as `svc0.` (the same bytes after it). */
  readonly svc0Prefix: string;
  /** Read as `svc1.` (the same bytes after it); a command called by this dialect's name answers with it. */
  readonly svc1Prefix: string;
  /** Other names of commands: alias path → the command's own path. */
  readonly commandAliases: Readonly<Record<string, string>>;
  /** The default `--domain` (command namespace `v0@<domain>`). */
  readonly domain: string;
  /** The default `--vm-domain` (VM tokens `v0@<vm>.<vm-domain>`, proxy hosts); null: `--domain`. */
  readonly vmDomain: string | null;
  /** Proxy request header carrying a VM token (`Bearer <token>`), lower case. */
  readonly proxyAuthorization: string;
  /** Proxy headers naming the visitor to the VM's server. */
  readonly visitorHeaders: {
    readonly email: string;
    readonly userId: string;
    readonly tokenCtx: string;
  };
  /** Client-sent headers starting with this (lower case, `_` read as `-`) never reach a VM. */
  readonly reservedHeaderPrefix: string;
  /** Header (and trailer) carrying the exit code of `ssh <vm> <command>` over HTTP. */
  readonly exitHeader: string;
  /**
   * Whether the status of `ssh <vm> <command>`'s held-back answer tells its exit code (422 for
   * a failure, 504 at the deadline). The real service always answers 200 there, and its clients
   * take any other status for a transport error: a server speaking such a dialect answers 200.
   */
  readonly vmExitInStatus: boolean;
}

/** exectl's own names (SPEC §1, §2, §6). */
export const EXECTL_DIALECT: Dialect = {
  compat: null,
  svc0Prefix: 'svc0.',
  svc1Prefix: 'svc1.',
  commandAliases: {},
  domain: 'localhost',
  vmDomain: null,
  proxyAuthorization: 'x-exectl-authorization',
  visitorHeaders: {
    email: 'X-Exectl-Email',
    userId: 'X-Exectl-User-Id',
    tokenCtx: 'X-Exectl-Token-Ctx',
  },
  reservedHeaderPrefix: 'x-exectl-',
  exitHeader: 'X-Exec-Exit',
  vmExitInStatus: true,
};

/** The real service's names (SPEC §12), spoken beside exectl's under `--compat exe.dev`. */
const EXE_DEV_DIALECT: Dialect = {
  compat: 'exe.dev',
  svc0Prefix: 'exe0.',
  svc1Prefix: 'exe1.',
  commandAliases: { 'exe0-to-exe1': 'svc0-to-svc1' },
  domain: 'exe.dev',
  vmDomain: 'exe.xyz',
  proxyAuthorization: 'x-exedev-authorization',
  visitorHeaders: {
    email: 'X-ExeDev-Email',
    userId: 'X-ExeDev-UserID',
    tokenCtx: 'X-ExeDev-Token-Ctx',
  },
  reservedHeaderPrefix: 'x-exedev-',
  exitHeader: 'X-Exe-Exit',
  vmExitInStatus: false,
};

/** Every dialect, exectl's first. */
export const ALL_DIALECTS: readonly Dialect[] = [EXECTL_DIALECT, EXE_DEV_DIALECT];

/** The values `--compat` accepts. */
export const COMPAT_NAMES: readonly string[] = ALL_DIALECTS.flatMap((d) =>
  d.compat === null ? [] : [d.compat],
);

/**
 * The dialects a server speaks: exectl's always, plus the one `compat` names (null: none).
 * @throws Error for a name not in {@link COMPAT_NAMES} (callers validate it first).
 */
export function dialectsFor(compat: string | null): readonly Dialect[] {
  const spoken = SPOKEN.get(compat);
  if (spoken === undefined) throw new Error(`unknown compat mode ${compat}`);
  return spoken;
}

/** Made once: the proxy and /exec ask on every request. */
const SPOKEN = new Map<string | null, readonly Dialect[]>(
  ALL_DIALECTS.map((d) => [d.compat, d === EXECTL_DIALECT ? [d] : [EXECTL_DIALECT, d]]),
);

/**
 * The token as exectl spells it: a token starting with the svc0 or svc1 prefix of one of
 * `dialects` gets exectl's prefix instead (the bytes after it unchanged); anything else is
 * returned as it is, to be judged (and refused) as usual.
 *
 * @example canonicalToken('exe0.e30.U1NI', dialectsFor('exe.dev')) // 'svc0.e30.U1NI'
 * @example canonicalToken('exe0.e30.U1NI', dialectsFor(null)) // 'exe0.e30.U1NI'
 */
export function canonicalToken(token: string, dialects: readonly Dialect[]): string {
  for (const d of dialects) {
    if (d.compat === null) continue;
    if (token.startsWith(d.svc0Prefix)) {
      return EXECTL_DIALECT.svc0Prefix + token.slice(d.svc0Prefix.length);
    }
    if (token.startsWith(d.svc1Prefix)) {
      return EXECTL_DIALECT.svc1Prefix + token.slice(d.svc1Prefix.length);
    }
  }
  return token;
}

/**
 * The dialect a server spelling `dialects` writes the tokens it makes in: the real service's
 * under `--compat` (its clients expect `exe1.`), else exectl's.
 */
export function tokenDialectOf(dialects: readonly Dialect[]): Dialect {
  return dialects.at(-1) ?? EXECTL_DIALECT;
}

/** A svc1 token (`svc1.…`) spelled with `dialect`'s prefix. */
export function svc1In(token: string, dialect: Dialect): string {
  return dialect.svc1Prefix + token.slice(EXECTL_DIALECT.svc1Prefix.length);
}

/** The dialect whose svc0 prefix is `prefix` (`svc0`, `exe0`, with or without its dot). */
export function dialectOfSvc0Prefix(prefix: string): Dialect | undefined {
  const dotted = prefix.endsWith('.') ? prefix : `${prefix}.`;
  return ALL_DIALECTS.find((d) => d.svc0Prefix === dotted);
}

/** A svc0 token (`svc0.…`) spelled with `dialect`'s prefix (`exe0.…`). */
export function svc0In(token: string, dialect: Dialect): string {
  return dialect.svc0Prefix + token.slice(EXECTL_DIALECT.svc0Prefix.length);
}

/** The path by which `dialect` calls exectl's command `path` (`exe0-to-exe1` for `svc0-to-svc1`). */
export function commandIn(path: string, dialect: Dialect): string {
  const alias = Object.entries(dialect.commandAliases).find(([, of]) => of === path);
  return alias === undefined ? path : alias[0];
}

/** The dialect whose svc0 or svc1 prefix `token` starts with, if any. */
export function dialectOfToken(token: string): Dialect | undefined {
  return ALL_DIALECTS.find((d) => token.startsWith(d.svc0Prefix) || token.startsWith(d.svc1Prefix));
}
