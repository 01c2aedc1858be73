// Runs the BUILT `exectl serve` as a user would, for the serve e2e tests: spawn it, wait for
// its banner, read the address it really listens on, talk to it with curl, stop it with a
// signal. Every started server is killed by `stopAll` if a test leaves one behind.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mintWithShellRecipe, run, type GeneratedKey } from '../helpers/keys.js';
import { REPO, wrapped } from './harness.js';

const BIN = join(REPO, 'bin', 'exectl.cjs');
/** Long enough for a loaded machine shared with other test runs. */
const START_TIMEOUT_MS = 30_000;
/** The banner's last line. */
const BANNER_END = /^Ctrl-C stops the server\.$/;

/** A launched `exectl serve`, before or after its banner. */
export interface LaunchedServe {
  child: ChildProcess;
  /** stderr so far (the banner, then logs). */
  stderr(): string;
  stdout(): string;
  /**
   * Waits until stderr after `from` characters holds a whole line matching `pattern`: the log
   * line of a request may be written just after its answer was sent.
   */
  waitForLine(pattern: RegExp, from?: number): Promise<string>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A running `exectl serve`, its banner shown. */
export interface ServeProcess extends LaunchedServe {
  /** The HTTP listener's URL, read from the banner. */
  url: string;
  /** The data folder, read from the banner. */
  dataDir: string;
}

export interface ServeOptions {
  home: string;
  env?: Record<string, string>;
  /** A command that runs exectl in its place (harness.ts `wrapped`); it must `exec` it. */
  wrap?: readonly string[];
}

const running = new Set<ChildProcess>();

/** The environment of a user whose home is `home`, with nothing from the developer's shell. */
export function userEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    USER: 'tester',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    GIT_CONFIG_NOSYSTEM: '1',
    NO_COLOR: '1',
    // The suite runs many servers at once: none takes the default SMTP port unless a test says so.
    EXECTL_SMTP_LISTEN: 'off',
    ...extra,
  };
}

/** The flags every test server uses: loopback, OS-chosen ports, no SSH, the process runtime. */
export const TEST_FLAGS = [
  '--listen',
  '127.0.0.1:0',
  '--ssh-listen',
  'off',
  '--reflection-listen',
  '127.0.0.1:0',
  '--runtime',
  'process',
] as const;

/** Starts `exectl serve ...args` without waiting for anything. */
export function launchServe(args: readonly string[], opts: ServeOptions): LaunchedServe {
  const [program, argv] = wrapped([process.execPath, BIN, 'serve', ...args], opts.wrap);
  const child = spawn(program, argv, {
    env: userEnv(opts.home, opts.env),
    cwd: opts.home,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  void exited.then(() => running.delete(child));
  let err = '';
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    waitForLine: async (pattern, from = 0) => {
      for (let waited = 0; waited < START_TIMEOUT_MS; waited += 20) {
        const lines = err.slice(from).split('\n').slice(0, -1);
        const line = lines.find((l) => pattern.test(l));
        if (line !== undefined) return line;
        if (child.exitCode !== null || child.signalCode !== null) break;
        await sleep(20);
      }
      throw new Error(`no stderr line matching ${pattern}:\n${err.slice(from)}`);
    },
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, received] = await exited;
      return { code, signal: received };
    },
  };
}

/** Starts `exectl serve ...args` and resolves once its banner is complete. */
export async function startServe(
  args: readonly string[],
  opts: ServeOptions,
): Promise<ServeProcess> {
  const launched = launchServe(args, opts);
  try {
    await launched.waitForLine(BANNER_END);
  } catch (error) {
    launched.child.kill('SIGKILL');
    throw error;
  }
  const banner = launched.stderr();
  return {
    ...launched,
    url: bannerValue(banner, 'HTTP').split(' ')[0]!,
    dataDir: bannerValue(banner, 'Data').split('  ')[0]!,
  };
}

/** Kills every server a test left running (for `after`). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }),
  );
}

/** The value on the banner line labelled `label`. */
export function bannerValue(banner: string, label: string): string {
  const line = banner.split('\n').find((l) => l.startsWith(`  ${label.padEnd(11)} `));
  assert.ok(line !== undefined, `no "${label}" line in the banner:\n${banner}`);
  return line.slice(14);
}

/** POSTs `commandLine` to `<url>/exec` with curl; returns the status and the body. */
export async function curlExec(
  url: string,
  token: string,
  commandLine: string,
): Promise<{ status: number; body: string }> {
  const result = await run(
    'curl',
    [
      '-sS',
      '-o',
      '-',
      '-w',
      '\n%{http_code}',
      '-H',
      `Authorization: Bearer ${token}`,
      '--data-binary',
      '@-',
      `${url}/exec`,
    ],
    { input: commandLine },
  );
  assert.equal(result.code, 0, result.stderr);
  const cut = result.stdout.lastIndexOf('\n');
  return { status: Number(result.stdout.slice(cut + 1)), body: result.stdout.slice(0, cut) };
}

/** A token for `cmds`, valid an hour, made with the SPEC §1.1 shell recipe. */
export function recipeToken(
  key: GeneratedKey,
  cmds: string[],
  domain = 'localhost',
): Promise<string> {
  const payload = JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600, cmds });
  return mintWithShellRecipe(key, payload, `v0@${domain}`);
}

/** Runs the command and parses its JSON answer, asserting a 200. */
export async function execJson(
  url: string,
  key: GeneratedKey,
  commandLine: string,
  cmd: string,
): Promise<unknown> {
  const answer = await curlExec(url, await recipeToken(key, [cmd]), commandLine);
  assert.equal(answer.status, 200, answer.body);
  return JSON.parse(answer.body) as unknown;
}
