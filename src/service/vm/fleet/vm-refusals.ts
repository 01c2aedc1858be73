// Why a VM refuses a command or a session: it is paused, or being removed or restarted.
import { commandFailed } from '../../../errors.js';
import type { VmRecord } from '../../store/index.js';

/**
 * The refusal of a paused VM's commands and sessions. The stored status decides: a VM paused
 * before a server restart stays paused (its processes ended with the server) until its owner
 * resumes it.
 */
export function pausedError(vm: VmRecord) {
  return commandFailed(`vm "${vm.name}" is paused`, { hint: `resume it with "resume ${vm.name}"` });
}

/** How `rm` or `restart` hangs up a VM's sessions, and refuses new ones while it runs. */
export function closing(vm: VmRecord, done: string, under: string) {
  return {
    hangUp: new Error(`vm "${vm.name}" was ${done}`),
    refusal: commandFailed(`vm "${vm.name}" is ${under}`, { hint: 'try again in a moment' }),
  };
}
