import { isValidKeyName } from './commands/shared/validate.js';

/**
 * The name a key registered without one gets, as `ssh-key add` names it: its comment when that
 * is a valid name not in `taken`, else the first free `key-N`.
 */
export function defaultKeyName(taken: ReadonlySet<string>, comment: string): string {
  if (isValidKeyName(comment) && !taken.has(comment)) return comment;
  let n = 1;
  while (taken.has(`key-${n}`)) n += 1;
  return `key-${n}`;
}
