// `exectl ssh` with input on stdin (SPEC §6a last paragraph): /exec carries no stdin, so the
// command goes over the VM's own SSH server instead (user `vm+<name>`), signed by the same key
// that would mint the token (an ssh-agent key too), with stdin forwarded and stdout and stderr
// apart, as `ssh vm+<name>@host` would.
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type * as Ssh2Module from 'ssh2';
import type { Signer } from '../../../token/keys.js';

/** Where the VM's SSH server listens (`ls`: ssh_host, ssh_port). */
export interface SshDestination {
  host: string;
  port: number;
  user: string;
}

/** What the session needs of the terminal-less process. */
interface SessionIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/**
 * Runs `command` with `/bin/sh -c` in the VM over SSH, `signer` authenticating; resolves with
 * its exit status (128 + n for a signal, as a shell reports it).
 *
 * The server's host key is taken as it is: the same trust as the URL the token would have gone
 * to (the signature binds the key to this one session, so nothing it signs can be replayed).
 *
 * @throws Error when the connection or the authentication fails.
 */
export async function runOverSsh(
  dest: SshDestination,
  signer: Signer,
  command: string,
  io: SessionIo,
): Promise<number> {
  // Loaded only here: ssh2 stays out of every other command's start-up.
  const loaded = await import('ssh2');
  const ssh2 = (loaded as unknown as { default?: Ssh2 }).default ?? loaded;
  const client = new ssh2.Client();
  const agent = signerAgent(ssh2, signer);
  return new Promise<number>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      client.end();
      reject(err);
    };
    client.once('error', fail);
    client.once('ready', () => {
      client.exec(command, (err, stream) => {
        if (err) return fail(err);
        let status = 255;
        stream.once('exit', (code: number | null, signal?: string) => {
          status = code ?? 128 + signalNumber(signal);
        });
        io.stdin.pipe(stream);
        stream.pipe(io.stdout, { end: false });
        stream.stderr.pipe(io.stderr, { end: false });
        stream.once('close', () => {
          io.stdin.unpipe(stream);
          io.stdin.pause();
          settled = true;
          client.end();
          resolve(status);
        });
      });
    });
    client.connect({
      host: dest.host,
      port: dest.port,
      username: dest.user,
      agent,
      hostVerifier: () => true,
      readyTimeout: 20_000,
    });
  });
}

type Ssh2 = typeof Ssh2Module;

/**
 * An ssh2 agent that offers one key and signs with `signer`: a key file and an ssh-agent key
 * alike. ssh2 wants the bare signature; `signer` gives the SSH wire form (name, then blob).
 */
function signerAgent(ssh2: Ssh2, signer: Signer) {
  class SignerAgent extends ssh2.BaseAgent {
    override getIdentities(cb: (err: Error | null, keys?: Buffer[]) => void): void {
      cb(null, [Buffer.from(signer.publicKey.toOpenSsh())]);
    }

    override sign(
      _key: unknown,
      data: Buffer,
      options: unknown,
      cb?: (err: Error | null, signature?: Buffer) => void,
    ): void {
      const done = (typeof options === 'function' ? options : cb) as NonNullable<typeof cb>;
      // An RSA key from exectl's signers signs with rsa-sha2-512 only.
      const hash =
        typeof options === 'object' && options !== null
          ? (options as { hash?: string }).hash
          : undefined;
      if (signer.publicKey.type === 'ssh-rsa' && hash !== 'sha512') {
        return done(new Error('this RSA key signs with rsa-sha2-512 only'));
      }
      signer.sign(data).then(
        (wire) => done(null, bareSignature(wire)),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      );
    }
  }
  return new SignerAgent();
}

/** The signature blob of an SSH wire signature (`string name, string blob`). */
function bareSignature(wire: Buffer): Buffer {
  const nameLength = wire.readUInt32BE(0);
  const at = 4 + nameLength;
  return wire.subarray(at + 4, at + 4 + wire.readUInt32BE(at));
}

function signalNumber(signal: string | undefined): number {
  const name = `SIG${(signal ?? '').replace(/^SIG/, '')}` as NodeJS.Signals;
  return constants.signals[name] ?? 0;
}
