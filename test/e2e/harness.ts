// Runs the BUILT exectl (bin/exectl.cjs -> dist/) as a user would, with a controlled
// environment: HOME and XDG_CONFIG_HOME in the test's temp dir, no SSH_AUTH_SOCK unless a test
// passes one, NO_COLOR, and nothing inherited from the developer's shell (EXECTL_*, ...).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { run } from '../helpers/keys.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
const BIN = join(REPO, 'bin', 'exectl.cjs');

/** The e2e tests need `npm run build` first (npm test does it); say so instead of skipping. */
export function assertBuilt(): void {
  assert.ok(
    existsSync(join(REPO, 'dist', 'bundle', 'main.cjs')),
    'dist/bundle/main.cjs is missing: run `npm run build` before the e2e tests',
  );
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The user's home folder (and XDG_CONFIG_HOME = home/.config). */
  home: string;
  /** Extra environment, e.g. SSH_AUTH_SOCK or EXECTL_PASSPHRASE. */
  env?: Record<string, string>;
  /** Written to stdin, which is then closed; without it stdin is closed at once. */
  input?: string;
  /** A command that runs exectl in its place, e.g. `setpriv ... --` (see {@link wrapped}). */
  wrap?: readonly string[];
}

/** The program and arguments that run `argv` through `wrap` (or as is without it). */
export function wrapped(argv: readonly string[], wrap: readonly string[] = []): [string, string[]] {
  const all = [...wrap, ...argv];
  return [all[0]!, all.slice(1)];
}

/** A `wrap` that runs exectl under `umask` (e.g. `000`). */
export function withUmask(umask: string): string[] {
  return ['sh', '-c', `umask ${umask} && exec "$@"`, 'sh'];
}

/** Runs `node bin/exectl.cjs ...args` and captures its exit code and output. */
export async function exectl(args: readonly string[], opts: CliOptions): Promise<CliResult> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: opts.home,
    XDG_CONFIG_HOME: join(opts.home, '.config'),
    NO_COLOR: '1',
    // The suite runs many servers at once: none takes the default SMTP port unless a test says so.
    EXECTL_SMTP_LISTEN: 'off',
    ...opts.env,
  };
  const [program, argv] = wrapped([process.execPath, BIN, ...args], opts.wrap);
  const child = spawn(program, argv, {
    env,
    cwd: opts.home,
    stdio: 'pipe',
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => stdout.push(c));
  child.stderr.on('data', (c: Buffer) => stderr.push(c));
  // A run that exits without reading its stdin is judged by its exit code, not by EPIPE.
  child.stdin.on('error', () => {});
  child.stdin.end(opts.input);
  const [code] = (await once(child, 'close')) as [number | null];
  return {
    code,
    stdout: Buffer.concat(stdout).toString('utf8'),
    stderr: Buffer.concat(stderr).toString('utf8'),
  };
}

/** The run failed with `code` and exactly one stderr line, `exectl: <line>`, and no stdout. */
export function assertOneLineError(result: CliResult, code: number, line: string): void {
  assert.deepEqual(
    { code: result.code, stdout: result.stdout, stderr: result.stderr },
    { code, stdout: '', stderr: `exectl: ${line}\n` },
  );
}

/** A man page of man/ as `man -l` renders it at 80 columns (`page`: e.g. `exectl-run`). */
export async function renderedManPage(page: string): Promise<string> {
  const result = await run('man', ['-l', join(REPO, 'man', `${page}.1`)], {
    env: { MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
  });
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}
