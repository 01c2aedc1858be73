// A whole service with machine VMs (runtime bwrap, the server is root) and its SSH listener on
// loopback, driven with the stock OpenSSH clients: the VM-as-SSH-destination tests' fixture.
import { run, type GeneratedKey, type RunResult } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';

export interface VmDestFixture {
  svc: TestService;
  port: number;
  /** The options every OpenSSH client (ssh, scp, sftp) takes here, `-p`/`-P` aside. */
  common(key?: GeneratedKey): string[];
  /** `ssh [extra] -l <user> 127.0.0.1 [command]`. */
  sshArgs(user: string, command?: string, extra?: string[], key?: GeneratedKey): string[];
  ssh(
    user: string,
    command?: string,
    opts?: { extra?: string[]; input?: string | Uint8Array; key?: GeneratedKey },
  ): Promise<RunResult>;
  /** A lobby command line, as the owner. */
  lobby(line: string, key?: GeneratedKey): Promise<RunResult>;
}

export async function startVmDest(): Promise<VmDestFixture> {
  const svc = await startTestService({
    runtime: 'bwrap',
    sshListen: { host: '127.0.0.1', port: 0 },
    commandDeadlineMs: 30_000,
  });
  const port = svc.service.endpoints.ssh!.port;
  const common = (key = svc.owner.key) => [
    '-F',
    '/dev/null',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'LogLevel=ERROR',
    '-i',
    key.path,
  ];
  const sshArgs = (user: string, command?: string, extra: string[] = [], key?: GeneratedKey) => [
    ...common(key),
    '-p',
    String(port),
    ...extra,
    '-l',
    user,
    '127.0.0.1',
    ...(command === undefined ? [] : [command]),
  ];
  return {
    svc,
    port,
    common,
    sshArgs,
    ssh: (user, command, opts = {}) =>
      run(
        'ssh',
        sshArgs(user, command, opts.extra, opts.key),
        opts.input === undefined ? {} : { input: opts.input },
      ),
    lobby: (line, key) => run('ssh', sshArgs('me', line, [], key)),
  };
}
