// What `exectl inspect` warns about (SPEC §8): no exp, a parent command listed without any of
// its subcommands (a parent grants none, §1.3), and a ctx that seems to hold a secret.
import type { Permissions } from '../token/permissions.js';
import { secretLookingPaths } from './secret-heuristic.js';

type WarningCode = 'no_exp' | 'parent_without_subcommands' | 'secret_in_ctx';

export interface InspectWarning {
  code: WarningCode;
  message: string;
}

/**
 * Command paths that only group subcommands. `team` is a command of its own, so listing it
 * alone is meaningful and not warned about.
 */
const PARENT_ONLY_COMMANDS = ['ssh-key', 'share', 'integrations'] as const;

export function warningsFor(p: Permissions): InspectWarning[] {
  const warnings: InspectWarning[] = [];
  if (p.exp === undefined) {
    warnings.push({
      code: 'no_exp',
      message: 'no exp: the token never expires; it works until its key is removed',
    });
  }
  const cmds = p.cmds ?? [];
  for (const parent of PARENT_ONLY_COMMANDS) {
    if (cmds.includes(parent) && !cmds.some((c) => c.startsWith(`${parent} `))) {
      warnings.push({
        code: 'parent_without_subcommands',
        message: `cmds lists "${parent}" without any of its subcommands, and a parent grants none (write e.g. "${parent} ${exampleSubcommand(parent)}")`,
      });
    }
  }
  const secrets = p.ctxRaw === undefined ? [] : secretLookingPaths(p.ctxRaw);
  if (secrets.length > 0) {
    warnings.push({
      code: 'secret_in_ctx',
      message: `ctx may hold a secret (${secrets.join(', ')}); ctx is public: anyone with the token can read it`,
    });
  }
  return warnings;
}

function exampleSubcommand(parent: (typeof PARENT_ONLY_COMMANDS)[number]): string {
  return parent === 'share' ? 'show' : 'list';
}
