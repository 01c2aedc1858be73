// The options of the commands that make tokens (`ssh-key generate-api-key`, `svc0-to-svc1`):
// namespaces, `--exp` and `--cmds`, each bounded by the request's own token.
import { DURATION_EXAMPLES, parseDuration } from '../../../durations.js';
import { commandFailed, ExectlError } from '../../../errors.js';
import { vmDomainOf } from '../../config.js';
import type { ServiceDeps } from '../../deps.js';
import { isAllowed } from '../../dispatch/authorize.js';
import type { CommandRegistry } from '../../dispatch/registry.js';
import { quote } from '../../rules/validate.js';
import { isRealServiceCommand } from '../../rules/real-service-commands.js';
import { rfc3339 } from '../../../time.js';

/** SPEC §1.3: the latest `exp` a token may carry (2100-01-01). */
const LATEST_EXP = 4102444800;
/** The one command whose cmds entry may name a VM: `ssh <vm>` (SPEC §1.3). */
const VM_SCOPED = 'ssh';

/**
 * The namespace of tokens for this server's command endpoint (`v0@<domain>`), or with a VM
 * name, of tokens for that VM's address (`v0@<vm>.<vm-domain>`, SPEC §1.2, §12).
 */
export function tokenNamespace(deps: ServiceDeps, vmName?: string): string {
  const { config } = deps;
  return vmName === undefined ? `v0@${config.domain}` : `v0@${vmName}.${vmDomainOf(config)}`;
}

/**
 * `--exp`: a duration from now (`30s`, `15m`, `1h`, `7d`, `2w`, `1y`: the parser `exectl mint`
 * uses) as unix seconds; `never` is null (no `exp` field).
 *
 * @throws 422 `invalid --exp "x": use a duration such as 30s, 15m, 1h, 7d, 2w or 1y, or never`,
 *   or `--exp "x" ends after 2100-01-01, the latest a token can expire`.
 */
export function parseExpiry(text: string, nowSeconds: number): number | null {
  if (text === 'never') return null;
  const seconds = parseDuration(text);
  if (seconds === undefined) {
    throw commandFailed(
      `invalid --exp ${quote(text)}: use a duration such as ${DURATION_EXAMPLES}, or never`,
    );
  }
  const exp = nowSeconds + seconds;
  if (!(exp <= LATEST_EXP)) {
    throw commandFailed(
      `--exp ${quote(text)} ends after 2100-01-01, the latest a token can expire`,
    );
  }
  return exp;
}

/**
 * The `exp` of a token made for a caller whose own token expires at `callerExp` (null: never,
 * or SSH): a token delegates nothing past its own `exp` (SPEC §3). `--exp` omitted (`given`
 * undefined) is `defaultText` cut down to `callerExp`; a `--exp` that ends later, or `never`,
 * is refused rather than silently shortened.
 *
 * @throws 422 as {@link parseExpiry}, or `--exp "1y" ends after this request's token expires
 *   (2026-01-01T00:05:00Z): use a shorter --exp, or a token that lives longer`.
 */
export function delegableExpiry(
  given: string | undefined,
  defaultText: string,
  nowSeconds: number,
  callerExp: number | null,
): number | null {
  const exp = parseExpiry(given ?? defaultText, nowSeconds);
  if (callerExp === null || (exp !== null && exp <= callerExp)) return exp;
  if (given === undefined) return callerExp;
  throw commandFailed(
    `--exp ${quote(given)} ends after this request's token expires (${rfc3339(callerExp)}): use a shorter --exp, or a token that lives longer`,
  );
}

/**
 * `--cmds a,b` (repeatable): the command paths, split at commas, trimmed, duplicates dropped,
 * in order. Each must be a command of this server (`ssh <vm>` too) or of the real service's
 * command reference (rules/real-service-commands.ts: code written for it names those), so a
 * typo cannot make a token that silently allows nothing. An empty list means "the defaults"
 * (no `cmds` field).
 *
 * @throws 422 `empty entry in --cmds` or `unknown command in --cmds: "x"`.
 */
export function parseCmdsFlag<Deps>(
  values: readonly string[],
  registry: CommandRegistry<Deps>,
): string[] | undefined {
  if (values.length === 0) return undefined;
  const cmds: string[] = [];
  for (const entry of values.flatMap((v) => v.split(',')).map((c) => c.trim())) {
    if (entry === '') throw commandFailed('empty entry in --cmds');
    if (!isCommandPath(entry, registry) && !isRealServiceCommand(entry)) {
      throw commandFailed(`unknown command in --cmds: ${quote(entry)}`);
    }
    if (!cmds.includes(entry)) cmds.push(entry);
  }
  return cmds;
}

/** Exactly as authorization compares them: words separated by single spaces. */
function isCommandPath<Deps>(entry: string, registry: CommandRegistry<Deps>): boolean {
  const words = entry.split(' ');
  const scopedToVm = words.length === 2 && words[0] === VM_SCOPED;
  try {
    return registry.lookup(scopedToVm ? [VM_SCOPED] : words).definition !== undefined;
  } catch (error) {
    if (error instanceof ExectlError && error.code === 'unknown_command') return false;
    throw error;
  }
}

/**
 * A token may not mint a wider one. A caller limited by a token (`callerCmds` not null) may
 * only grant what its own token allows, and without `--cmds` the new token gets exactly the
 * caller's commands (not the defaults, which may be more). SSH callers grant anything.
 *
 * @throws 422 `cannot grant "x": the token of this request does not allow it`.
 */
export function grantableCmds(
  callerCmds: readonly string[] | null,
  requested: string[] | undefined,
): string[] | undefined {
  if (callerCmds === null) return requested;
  if (requested === undefined) return [...callerCmds];
  for (const entry of requested) {
    const [first = '', ...rest] = entry.split(' ');
    const allowed =
      first === VM_SCOPED && rest.length === 1
        ? isAllowed(callerCmds, VM_SCOPED, rest)
        : isAllowed(callerCmds, entry, []);
    if (!allowed) {
      throw commandFailed(
        `cannot grant ${quote(entry)}: the token of this request does not allow it`,
      );
    }
  }
  return requested;
}
