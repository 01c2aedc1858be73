// The environment of a command inside a VM: exactly these variables, nothing of the server's.

/** The PATH every VM command starts with; also where the runtimes look for their tools. */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The PATH of a command inside a VM: the system's, then the exectl client's own folder
 * (base-system.ts), last so that a client the VM installs itself comes first.
 */
export const VM_PATH = `${DEFAULT_PATH}:/opt/exectl/bin`;

/** Who the command runs as, as the runtime sees it. */
interface CommandHome {
  HOME: string;
  USER: string;
}

/**
 * HOME, USER and PATH, then the VM's `--env` values (a user who sets PATH means it), then the
 * per-call values such as `EXECTL_REFLECTION_URL`, which nothing may override.
 */
export function commandEnv(
  home: CommandHome,
  vmEnv: Readonly<Record<string, string>>,
  callEnv: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return { HOME: home.HOME, USER: home.USER, PATH: VM_PATH, ...vmEnv, ...callEnv };
}
