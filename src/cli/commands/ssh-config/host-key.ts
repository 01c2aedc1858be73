// The server's SSH host key, for exectl ssh-config to pin: read from the SSH listener's
// key exchange, then the connection is dropped before anything is signed. Trusted as the URL
// the `ls` answer came from is (the same server told us where its SSH listener is).

/** `ssh-ed25519 AAAA...`: a known_hosts key, type and base64 blob. */
export type HostKeyLine = string;

const KEY_TYPE = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521))$/;

/**
 * The host key `host:port` offers, as a known_hosts key.
 *
 * @throws Error when nothing answers, or what answers offers no key of a known type.
 */
export async function fetchHostKey(host: string, port: number): Promise<HostKeyLine> {
  // Loaded only here: ssh2 stays out of every other command's start-up.
  const loaded = await import('ssh2');
  const ssh2 = (loaded as unknown as { default?: typeof loaded }).default ?? loaded;
  const client = new ssh2.Client();
  return new Promise<HostKeyLine>((resolve, reject) => {
    let seen: HostKeyLine | undefined;
    const done = () => {
      client.end();
      if (seen !== undefined) resolve(seen);
      else reject(new Error('the SSH listener offered no host key of a known type'));
    };
    client.once('error', (err: Error) => (seen === undefined ? reject(err) : done()));
    client.once('close', done);
    client.connect({
      host,
      port,
      username: 'exectl-ssh-config',
      readyTimeout: 20_000,
      // Seen, kept, and refused: the connection ends here, before any authentication.
      hostVerifier: (key: Buffer) => {
        seen = knownHostsKey(key);
        return false;
      },
    });
  });
}

/** The blob's `type base64`, when it starts with a key type exectl knows. */
function knownHostsKey(blob: Buffer): HostKeyLine | undefined {
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  const type = blob.subarray(4, 4 + length).toString('latin1');
  return KEY_TYPE.test(type) ? `${type} ${blob.toString('base64')}` : undefined;
}
