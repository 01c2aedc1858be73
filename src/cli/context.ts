import type { Readable, Writable } from 'node:stream';
import { loadConfigFile, resolveSettings, type ConfigFile, type Settings } from './settings.js';

/**
 * The part of a process the CLI touches. `process` itself satisfies it; tests pass their own
 * streams and env, so commands never reach for process globals.
 */
export interface CliProcess {
  readonly stdin: Readable & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The flags every command accepts (SPEC §8 "Global"), as commander parsed them. */
export interface GlobalFlags {
  url?: string;
  profile?: string;
  /** False after `--no-color`. */
  color: boolean;
  quiet?: boolean;
}

/** The flags a command may add on top of the global ones when it resolves settings. */
interface CommandSettingFlags {
  key?: string;
  namespace?: string;
}

interface Clock {
  nowSeconds(): number;
}

const systemClock: Clock = { nowSeconds: () => Math.floor(Date.now() / 1000) };

/** Everything a command needs from the outside world, so it can run as a plain function. */
export interface CliContext {
  readonly stdin: CliProcess['stdin'];
  readonly stdout: CliProcess['stdout'];
  readonly stderr: CliProcess['stderr'];
  readonly env: CliProcess['env'];
  readonly clock: Clock;
  /** `-q`: no warnings or progress, only results and errors. */
  readonly quiet: boolean;
  /** Colours are allowed: stdout is a TTY, no `--no-color`, no `NO_COLOR`. */
  readonly color: boolean;
  /**
   * Settings (flags > env > profile > defaults) with this command's own flags applied. The
   * config file is read on first use only, so commands that need no settings never touch it.
   */
  settings(flags?: CommandSettingFlags): Settings;
}

export function createContext(proc: CliProcess, globals: GlobalFlags): CliContext {
  let config: { file: ConfigFile | undefined } | undefined;
  // NO_COLOR counts only when non-empty (https://no-color.org).
  const color = globals.color && !proc.env.NO_COLOR && proc.stdout.isTTY === true;
  return {
    // Getters: Node builds process.stdin and process.stderr on first use, a cost at start-up
    // for the commands that never read input or warn.
    get stdin() {
      return proc.stdin;
    },
    stdout: proc.stdout,
    get stderr() {
      return proc.stderr;
    },
    env: proc.env,
    clock: systemClock,
    quiet: globals.quiet === true,
    color,
    settings(flags = {}) {
      config ??= { file: loadConfigFile(proc.env) };
      return resolveSettings(
        { ...flags, url: globals.url, profile: globals.profile },
        proc.env,
        config.file,
      );
    },
  };
}
