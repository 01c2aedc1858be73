// The library's client of `POST /exec` (SPEC §10): `exec` gives the JSON answer or throws a
// typed ExecError; `ssh` gives a VM command's exit code and its exact output bytes.
import { request } from 'undici';
import { remoteCommandLine } from '../command-line.js';
import { catalogPathOf } from '../command-catalog.js';
import { codeForStatus, type ErrorCode } from '../errors.js';
import { lexCommandLine } from '../shell-words.js';
import type { Signer } from '../token/keys.js';
import { mintSvc0 } from '../token/mint.js';
import { serializePermissions } from '../token/permissions.js';
import { signerFor } from './owner-key.js';

export interface ClientOptions {
  /** The server's HTTP listener, e.g. `server.url`. */
  url: string;
  /** A bearer token (svc0 or svc1) sent with every request. */
  token?: string;
  /** Or a key (private key file, or a Signer): each request gets a 5-minute token for its command. */
  key?: string | Signer;
  /** The server's `--domain`, for the tokens minted with `key`. Default `localhost`. */
  domain?: string;
}

/** A failed `/exec` answer: its status, the catalogue code of that status, and the message. */
export class ExecError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'unexpected_status',
    message: string,
    /** The answer's body as JSON (`{"error": ...}`, or `rm`'s partial result), if JSON. */
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ExecError';
  }
}

/** The outcome of a command run in a VM. */
export interface SshResult {
  exitCode: number;
  /** stdout and stderr as the server sent them, byte for byte. */
  output: Buffer;
}

const TOKEN_LIFETIME_SECONDS = 300;

export class Client {
  readonly #endpoint: string;
  readonly #token: string | undefined;
  readonly #signer: Promise<Signer> | undefined;
  readonly #namespace: string;

  constructor(options: ClientOptions) {
    if ((options.token === undefined) === (options.key === undefined)) {
      throw new TypeError('new Client needs exactly one of token and key');
    }
    this.#endpoint = `${options.url.replace(/\/+$/, '')}/exec`;
    this.#token = options.token;
    const { key } = options;
    this.#signer = typeof key === 'string' ? signerFor(key) : key && Promise.resolve(key);
    this.#signer?.catch(() => {}); // reported by the first request instead
    this.#namespace = `v0@${options.domain ?? 'localhost'}`;
  }

  /** Runs `commandLine`; resolves to its JSON answer. @throws ExecError for any error status. */
  async exec(commandLine: string): Promise<unknown> {
    const answer = await this.#post(commandLine);
    const text = answer.body.toString('utf8');
    if (answer.status !== 200) throw failure(answer.status, text);
    return answer.json ? JSON.parse(text) : text;
  }

  /**
   * Runs `argv` in `vm` with exact-argv quoting: each word reaches the program byte for byte
   * (`ssh('web', ['sh', '-c', 'ls | wc -l'])`). Unlike `exectl ssh`, which joins its words by
   * spaces for the VM's shell as OpenSSH's `ssh` does, nothing here is read by a shell.
   * @throws ExecError when the command could not run (unknown VM, 403, ...).
   */
  async ssh(vm: string, argv: readonly string[]): Promise<SshResult> {
    const answer = await this.#post(remoteCommandLine(vm, argv));
    const exit = answer.exitCode;
    if (exit === undefined) throw failure(answer.status, answer.body.toString('utf8'));
    // Held back, then cut off (the deadline, 504): the status says so, and X-Exec-Error why.
    if (answer.status >= 400 && answer.cutOff !== undefined) {
      const code = codeForStatus(answer.status) ?? 'unexpected_status';
      throw new ExecError(answer.status, code, answer.cutOff, { error: answer.cutOff });
    }
    return { exitCode: exit, output: answer.body };
  }

  async #post(line: string) {
    const token = this.#token ?? (await this.#mint(line));
    const response = await request(this.#endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain; charset=utf-8' },
      body: line,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    // A streamed VM output carries its exit code in the trailer, known once the body has ended.
    const exit = header(response.headers['x-exec-exit']) ?? response.trailers['x-exec-exit'];
    const contentType = header(response.headers['content-type']) ?? '';
    const cutOff = header(response.headers['x-exec-error']) ?? response.trailers['x-exec-error'];
    return {
      status: response.statusCode,
      body,
      json: /^application\/json\b/i.test(contentType),
      exitCode: exit === undefined || !/^\d{1,3}$/.test(exit.trim()) ? undefined : Number(exit),
      cutOff,
    };
  }

  async #mint(line: string): Promise<string> {
    const signer = await this.#signer!;
    const scope = catalogPathOf(lexCommandLine(line))?.path ?? line.split(' ')[0] ?? '';
    const exp = Math.floor(Date.now() / 1000) + TOKEN_LIFETIME_SECONDS;
    return mintSvc0(serializePermissions({ exp, cmds: [scope] }), signer, this.#namespace);
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function failure(status: number, text: string): ExecError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: unknown } | undefined)?.error;
  const message = typeof error === 'string' ? error : `the server answered ${status}`;
  return new ExecError(status, codeForStatus(status) ?? 'unexpected_status', message, body);
}
