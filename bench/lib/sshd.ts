// OpenSSH's own sshd on loopback, the baseline of the SSH benches: what a real SSH server on
// this machine does with the same client and the same work.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const SSHD = '/usr/sbin/sshd';

/**
 * sshd on 127.0.0.1:`port` in the foreground, root's key `authorized`, its sftp subsystem
 * sshd's own (internal-sftp: no helper process, the best case of OpenSSH itself).
 */
export async function startSshd(
  folder: string,
  port: number,
  authorized: string,
): Promise<ChildProcess> {
  const hostKey = join(folder, 'sshd_host_key');
  const keygen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  if (keygen.status !== 0) throw new Error(`ssh-keygen exited ${keygen.status}`);
  await mkdir('/run/sshd', { recursive: true });
  const config = join(folder, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PidFile none',
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: 'ignore' });
  // Bounded: it listens within a moment or the bench fails.
  for (let i = 0; i < 100; i++) {
    if (await listening(port)) return child;
    await sleep(50);
  }
  child.kill();
  throw new Error('sshd did not start listening');
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
