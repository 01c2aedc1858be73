import { connect } from 'node:net';
import { ExectlError } from '../errors.js';
import { publicKeyFromBlob, type Signer } from './public-key.js';
import { SshReader, sshString, sshUint32 } from './ssh-wire.js';

/** Message numbers of the ssh-agent protocol (draft-miller-ssh-agent). */
const SSH_AGENT_FAILURE = 5;
const SSH2_AGENTC_REQUEST_IDENTITIES = 11;
const SSH2_AGENT_IDENTITIES_ANSWER = 12;
const SSH2_AGENTC_SIGN_REQUEST = 13;
const SSH2_AGENT_SIGN_RESPONSE = 14;
/** Without this flag the agent signs RSA with SHA-1, which every verifier now rejects. */
const SSH_AGENT_RSA_SHA2_512 = 0x04;
/** OpenSSH's own cap on an agent message. */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** Generous: an agent may ask the user to confirm (ssh-add -c) or to touch a security key. */
const AGENT_TIMEOUT_MS = 30_000;

function agentError(message: string, cause?: unknown): ExectlError {
  return new ExectlError('key_error', message, {
    hint: 'check that ssh-agent runs and SSH_AUTH_SOCK points to it, or pass --key PATH',
    cause,
  });
}

/**
 * Sends one request to the agent on a fresh connection and resolves to the reply body
 * (message type byte first). One connection per operation keeps the state trivial.
 */
function exchange(socketPath: string, request: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (error: ExectlError): void => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(AGENT_TIMEOUT_MS, () =>
      fail(agentError(`ssh-agent at ${socketPath} did not answer in time`)),
    );
    socket.on('error', (cause) =>
      fail(agentError(`cannot reach ssh-agent at ${socketPath}`, cause)),
    );
    socket.on('close', () => fail(agentError(`ssh-agent at ${socketPath} closed the connection`)));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < 4) return;
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      const length = head.readUInt32BE(0);
      if (length > MAX_MESSAGE_BYTES) {
        fail(agentError(`ssh-agent at ${socketPath} sent an oversized reply`));
      } else if (received >= 4 + length) {
        socket.destroy();
        resolve(Buffer.concat(chunks).subarray(4, 4 + length));
      }
    });
    socket.write(Buffer.concat([sshUint32(request.length), request]));
  });
}

function badReply(socketPath: string): () => ExectlError {
  return () => agentError(`ssh-agent at ${socketPath} sent a malformed reply`);
}

async function agentSign(socketPath: string, keyBlob: Buffer, data: Uint8Array): Promise<Buffer> {
  const isRsa = new SshReader(keyBlob, badReply(socketPath)).text() === 'ssh-rsa';
  const request = Buffer.concat([
    Buffer.of(SSH2_AGENTC_SIGN_REQUEST),
    sshString(keyBlob),
    sshString(data),
    sshUint32(isRsa ? SSH_AGENT_RSA_SHA2_512 : 0),
  ]);
  const reply = new SshReader(await exchange(socketPath, request), badReply(socketPath));
  const type = reply.byte();
  if (type === SSH_AGENT_FAILURE) {
    throw agentError(`ssh-agent at ${socketPath} refused to sign`);
  }
  if (type !== SSH2_AGENT_SIGN_RESPONSE) throw badReply(socketPath)();
  // The reply is the complete SSH wire signature, sk flags and counter included: keep as is.
  const signature = Buffer.from(reply.string());
  reply.end();
  return signature;
}

/**
 * Lists the keys held by the ssh-agent listening on `socketPath`, in the agent's order, as
 * {@link Signer}s that sign through it (`source` is `ssh-agent`). Keys exectl does not support
 * (DSA, certificates, small RSA) are left out. RSA keys are asked to sign as rsa-sha2-512.
 *
 * @throws ExectlError `key_error` when the agent cannot be reached, times out or answers badly.
 */
export async function listAgentSigners(socketPath: string): Promise<Signer[]> {
  const body = await exchange(socketPath, Buffer.of(SSH2_AGENTC_REQUEST_IDENTITIES));
  const reply = new SshReader(body, badReply(socketPath));
  if (reply.byte() !== SSH2_AGENT_IDENTITIES_ANSWER) throw badReply(socketPath)();
  const count = reply.uint32();
  const signers: Signer[] = [];
  for (let i = 0; i < count; i++) {
    const blob = Buffer.from(reply.string());
    // A comment is only shown to people: never refuse a key over a badly encoded one.
    const comment = reply.string().toString('utf8');
    try {
      const publicKey = publicKeyFromBlob(blob, comment);
      signers.push({
        publicKey,
        source: 'ssh-agent',
        sign: (data) => agentSign(socketPath, publicKey.blob, data),
      });
    } catch (error) {
      if (!(error instanceof ExectlError)) throw error;
    }
  }
  reply.end();
  return signers;
}
