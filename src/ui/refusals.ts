// A session whose token lacks some commands (SPEC §11) sees everything else: where a part of
// the page needs a command it may not run, that part says so in place, naming the command,
// instead of one error line for the whole page.
import { ApiError } from './api.js';
import { announce, fill, h } from './dom.js';

/** The command a refusal names (`command not allowed: whoami`), when the session lacks it. */
export function refusedCommand(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 403) return undefined;
  return /^command not allowed: (\S+(?: \S+)*)$/.exec(err.message)?.[1];
}

/** The mark of a part of the page that needs `command`. */
export function lackingNote(command: string): HTMLElement {
  return h(
    'p',
    { class: 'lacking', role: 'note' },
    'This session may not run ',
    h('code', {}, command),
    ': sign in with a link asked for by a token that allows it to see this.',
  );
}

/**
 * Shows `err` where it belongs: a command the session lacks marks `region` in place, anything
 * else goes to the page's status line.
 */
export function showFailure(region: HTMLElement, err: unknown): void {
  const command = refusedCommand(err);
  if (command === undefined) announce(String(err), true);
  else fill(region, lackingNote(command));
}
