/**
 * The command paths the service offers, and whether each changes state. The service's registry
 * holds the full definitions; this list is what the client needs without asking the server:
 * the path of a command line (to mint a token for exactly that command) and whether a failed
 * request may be repeated safely. A test keeps it identical to the registry.
 */
interface CatalogEntry {
  path: string;
  /** Changes state: never retried automatically. */
  mutates: boolean;
}

export const COMMAND_CATALOG: readonly CatalogEntry[] = [
  { path: 'help', mutates: false },
  { path: 'whoami', mutates: false },
  { path: 'ls', mutates: false },
  { path: 'new', mutates: true },
  { path: 'browser', mutates: true },
  { path: 'cp', mutates: true },
  { path: 'rm', mutates: true },
  { path: 'restart', mutates: true },
  { path: 'rename', mutates: true },
  { path: 'tag', mutates: true },
  { path: 'comment', mutates: true },
  { path: 'stat', mutates: false },
  { path: 'resize', mutates: true },
  { path: 'pause', mutates: true },
  { path: 'resume', mutates: true },
  { path: 'ssh-key list', mutates: false },
  { path: 'ssh-key add', mutates: true },
  { path: 'ssh-key remove', mutates: true },
  { path: 'ssh-key rename', mutates: true },
  { path: 'ssh-key generate-api-key', mutates: true },
  { path: 'svc0-to-svc1', mutates: true },
  { path: 'share show', mutates: false },
  { path: 'share port', mutates: true },
  { path: 'share set-public', mutates: true },
  { path: 'share set-private', mutates: true },
  { path: 'share add', mutates: true },
  { path: 'share remove', mutates: true },
  { path: 'team', mutates: false },
  { path: 'team members', mutates: false },
  { path: 'team add', mutates: true },
  { path: 'team remove', mutates: true },
  { path: 'team leave', mutates: true },
  { path: 'integrations list', mutates: false },
  { path: 'integrations add', mutates: true },
  { path: 'integrations remove', mutates: true },
  { path: 'integrations rename', mutates: true },
  { path: 'integrations attach', mutates: true },
  { path: 'integrations detach', mutates: true },
  // Runs arbitrary code in a VM: never assumed safe to repeat.
  { path: 'ssh', mutates: true },
];

/**
 * The command path a command line's words name: the longest catalogue path that prefixes them
 * (`['ssh-key', 'list', '--json']` → `ssh-key list`), or undefined when none does.
 */
export function catalogPathOf(words: readonly string[]): CatalogEntry | undefined {
  let best: CatalogEntry | undefined;
  for (const entry of COMMAND_CATALOG) {
    const parts = entry.path.split(' ');
    if (
      parts.every((p, i) => words[i] === p) &&
      parts.length > (best?.path.split(' ').length ?? 0)
    ) {
      best = entry;
    }
  }
  return best;
}
