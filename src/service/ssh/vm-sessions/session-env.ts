// The environment an SSH session into a VM takes from its client (SPEC §6a): `env` requests
// for LANG, LC_* and TERM only, as sshd's AcceptEnv of Debian, and a bounded number of them.

const ACCEPTED_NAME = /^(LANG|TERM|LC_[A-Z_]{1,32})$/;
/** A value longer than any locale or terminal name is not one. */
const MAX_VALUE = 256;
/** LANG, TERM and the dozen LC_* names fit with room to spare. */
const MAX_VARIABLES = 20;

/** The variables one session accepted so far. */
export interface SessionEnv {
  /** Keeps `name=value` when it is accepted; false when refused. */
  take(name: string, value: string): boolean;
  values(): Record<string, string>;
}

export function sessionEnv(): SessionEnv {
  const kept = new Map<string, string>();
  return {
    take(name, value) {
      if (!ACCEPTED_NAME.test(name) || value.length > MAX_VALUE || value.includes('\0')) {
        return false;
      }
      if (!kept.has(name) && kept.size >= MAX_VARIABLES) return false;
      kept.set(name, value);
      return true;
    },
    values: () => Object.fromEntries(kept),
  };
}
