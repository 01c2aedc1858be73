import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Every key type exectl supports, as `ssh-keygen -t/-b` makes them. */
export type KeyKind =
  'ed25519' | 'ecdsa-256' | 'ecdsa-384' | 'ecdsa-521' | 'rsa-2048' | 'rsa-3072' | 'rsa-4096';

export const ALL_KEY_KINDS: readonly KeyKind[] = [
  'ed25519',
  'ecdsa-256',
  'ecdsa-384',
  'ecdsa-521',
  'rsa-2048',
  'rsa-3072',
  'rsa-4096',
];

/** A key pair written by real ssh-keygen. */
export interface GeneratedKey {
  kind: KeyKind;
  /** Private key file. */
  path: string;
  /** `path + '.pub'`. */
  pubPath: string;
  /** The .pub line without its newline: `type base64 comment`. */
  publicKeyLine: string;
  /** The passphrase protecting `path`, if any. */
  passphrase: string | undefined;
}

export interface GenerateKeyOptions {
  /** File name inside the directory; default `id_<kind>`. */
  name?: string;
  /** Protects the key (`ssh-keygen -N`); default none. */
  passphrase?: string;
  /** `-m PEM` / `-m PKCS8` (ssh-keygen ignores these for ed25519); default OpenSSH. */
  format?: 'openssh' | 'pem' | 'pkcs8';
  /** `-Z cipher` for an encrypted OpenSSH key, e.g. `aes256-gcm@openssh.com`. */
  cipher?: string;
  /** `-C comment`; default `<kind>@exectl-test`. */
  comment?: string;
}

/** The outcome of a finished child process. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to completion and captures its output. `SSH_AUTH_SOCK` is removed from the
 * environment unless `env` sets it: `ssh-keygen -Y sign -f key` silently signs through an
 * agent holding that key, and tests that name a file must use the file.
 */
export async function run(
  program: string,
  args: readonly string[],
  opts: { input?: string | Uint8Array; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.SSH_AUTH_SOCK;
  const child = spawn(program, args, {
    env: { ...env, ...opts.env },
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout?.on('data', (c: Buffer) => stdout.push(c));
  child.stderr?.on('data', (c: Buffer) => stderr.push(c));
  if (child.stdin !== null) {
    // A program that exits without reading its input is judged by its exit code, not EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input);
  }
  const [code] = (await once(child, 'close')) as [number | null];
  return {
    code,
    stdout: Buffer.concat(stdout).toString('utf8'),
    stderr: Buffer.concat(stderr).toString('utf8'),
  };
}

async function runOk(program: string, args: readonly string[], opts = {}): Promise<string> {
  const result = await run(program, args, opts);
  if (result.code !== 0) {
    throw new Error(`${program} ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return result.stdout;
}

/**
 * Environment that makes ssh-keygen/ssh-add read `passphrase` without a terminal, through an
 * SSH_ASKPASS script written into `dir`. Empty when there is no passphrase.
 */
async function askpassEnv(
  dir: string,
  passphrase: string | undefined,
): Promise<Record<string, string>> {
  if (passphrase === undefined) return {};
  const script = join(dir, '.askpass.sh');
  await writeFile(script, '#!/bin/sh\nprintf "%s\\n" "$EXECTL_TEST_ASKPASS"\n', { mode: 0o700 });
  return {
    SSH_ASKPASS: script,
    SSH_ASKPASS_REQUIRE: 'force',
    EXECTL_TEST_ASKPASS: passphrase,
    DISPLAY: ':0',
  };
}

/** Generates a key pair of `kind` in `dir` with real `ssh-keygen`. */
export async function generateKey(
  dir: string,
  kind: KeyKind,
  opts: GenerateKeyOptions = {},
): Promise<GeneratedKey> {
  const [type, bits] = kind.split('-') as [string, string | undefined];
  const path = join(dir, opts.name ?? `id_${kind}`);
  const args = ['-q', '-t', type, '-f', path, '-N', opts.passphrase ?? ''];
  args.push('-C', opts.comment ?? `${kind}@exectl-test`);
  if (bits !== undefined) args.push('-b', bits);
  if (opts.format === 'pem') args.push('-m', 'PEM');
  if (opts.format === 'pkcs8') args.push('-m', 'PKCS8');
  if (opts.cipher !== undefined) args.push('-Z', opts.cipher);
  await runOk('ssh-keygen', args);
  const publicKeyLine = (await readFile(`${path}.pub`, 'utf8')).trim();
  return { kind, path, pubPath: `${path}.pub`, publicKeyLine, passphrase: opts.passphrase };
}

/**
 * Signs `message` with `ssh-keygen -Y sign` using the key FILE (never an agent) and returns
 * the armored signature exactly as printed. ssh-keygen hashes with sha512 unless told otherwise.
 */
export async function sshKeygenSign(
  key: GeneratedKey,
  message: string | Uint8Array,
  namespace: string,
  opts: { hashAlgorithm?: 'sha256' | 'sha512' } = {},
): Promise<string> {
  const args = ['-Y', 'sign', '-f', key.path, '-n', namespace];
  if (opts.hashAlgorithm !== undefined) args.push('-O', `hashalg=${opts.hashAlgorithm}`);
  const env = await askpassEnv(dirname(key.path), key.passphrase);
  return runOk('ssh-keygen', args, { input: message, env });
}

/**
 * Checks an armored signature with `ssh-keygen -Y verify`, trusting only `publicKeyLine`
 * (written to an allowed_signers file in `dir`) for principal `tester@exectl`.
 */
export async function sshKeygenVerify(opts: {
  dir: string;
  publicKeyLine: string;
  armoredSignature: string;
  message: string | Uint8Array;
  namespace: string;
}): Promise<RunResult & { ok: boolean }> {
  const stamp = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const allowed = join(opts.dir, `allowed_signers-${stamp}`);
  const sigFile = join(opts.dir, `message-${stamp}.sig`);
  await writeFile(allowed, `tester@exectl ${opts.publicKeyLine}\n`);
  await writeFile(sigFile, opts.armoredSignature);
  const args = ['-Y', 'verify', '-f', allowed, '-I', 'tester@exectl', '-n', opts.namespace];
  const result = await run('ssh-keygen', [...args, '-s', sigFile], { input: opts.message });
  return { ...result, ok: result.code === 0 };
}

/**
 * Makes a svc0 token with the SPEC §1.1 shell recipe, run verbatim in bash with real
 * ssh-keygen; only KEY, the namespace and P are substituted (through the environment), plus
 * `-O hashalg=sha256` when asked. Returns the token.
 */
export async function mintWithShellRecipe(
  key: GeneratedKey,
  payload: string,
  namespace: string,
  opts: { hashAlgorithm?: 'sha256' | 'sha512' } = {},
): Promise<string> {
  const hashOption = opts.hashAlgorithm === undefined ? '' : ` -O hashalg=${opts.hashAlgorithm}`;
  const script = [
    'set -euo pipefail',
    "b64url() { tr -d '\\n=' | tr '+/' '-_'; }",
    'P="$EXECTL_TEST_PAYLOAD"',
    `SIG=$(printf '%s' "$P" | ssh-keygen -Y sign -f "$KEY" -n "$NS"${hashOption} | sed '1d;$d' | b64url)`,
    'TOKEN="svc0.$(printf \'%s\' "$P" | base64 | b64url).$SIG"',
    'printf \'%s\' "$TOKEN"',
  ].join('\n');
  const env = {
    ...(await askpassEnv(dirname(key.path), key.passphrase)),
    KEY: key.path,
    NS: namespace,
    EXECTL_TEST_PAYLOAD: payload,
  };
  return runOk('bash', ['-c', script], { env });
}

/** A real ssh-agent started for one test file. */
export interface TestAgent {
  /** Value for SSH_AUTH_SOCK. */
  socketPath: string;
  pid: number;
  /** Loads a key with `ssh-add` (answering its passphrase through SSH_ASKPASS). */
  add(key: GeneratedKey): Promise<void>;
  /** Stops the agent and waits for it to exit; safe to call twice. */
  stop(): Promise<void>;
}

/** Starts `ssh-agent -D` with its socket in `dir` and waits until the socket exists. */
export async function startAgent(dir: string): Promise<TestAgent> {
  const socketPath = join(dir, 'agent.sock');
  const child = spawn('ssh-agent', ['-D', '-a', socketPath], { stdio: 'ignore' });
  const exited = once(child, 'exit');
  for (let waited = 0; !(await stat(socketPath).catch(() => undefined)); waited += 20) {
    if (waited > 5000 || child.exitCode !== null) {
      child.kill();
      throw new Error(`ssh-agent did not create ${socketPath}`);
    }
    await sleep(20);
  }
  return {
    socketPath,
    pid: child.pid as number,
    add: async (key) => {
      const env = { ...(await askpassEnv(dir, key.passphrase)), SSH_AUTH_SOCK: socketPath };
      await runOk('ssh-add', ['-q', key.path], { env });
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
