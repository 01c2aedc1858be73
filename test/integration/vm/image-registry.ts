// A real OCI registry on loopback for the image tests (SPEC §4a): Debian's docker-registry
// (the distribution registry) with filesystem storage in a temp folder, optionally behind an
// htpasswd user, and images built here from busybox-static with umoci, pushed with skopeo.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdir, symlink, writeFile, copyFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const run = promisify(execFile);

/** A registry the test started. */
export interface TestRegistry {
  /** `127.0.0.1:<port>`. */
  readonly host: string;
  stop(): Promise<void>;
}

/** A free loopback port (asked of the kernel, then let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts docker-registry in `dir`; with `user`, it asks for that user's password (bcrypt). */
export async function startRegistry(
  dir: string,
  user?: { name: string; password: string },
): Promise<TestRegistry> {
  await mkdir(join(dir, 'storage'), { recursive: true });
  const port = await freePort();
  const auth =
    user === undefined
      ? ''
      : `auth:\n  htpasswd:\n    realm: exectl-tests\n    path: ${join(dir, 'htpasswd')}\n`;
  if (user !== undefined) {
    const { stdout } = await run('htpasswd', ['-nbB', user.name, user.password]);
    await writeFile(join(dir, 'htpasswd'), stdout.trim() + '\n');
  }
  const config = [
    'version: 0.1',
    'log:',
    '  level: error',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'storage')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    auth,
  ].join('\n');
  await writeFile(join(dir, 'config.yml'), config);
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], {
    stdio: 'ignore',
  });
  const host = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await fetch(`http://${host}/v2/`).catch(() => undefined);
    if (answer !== undefined) break;
    if (Date.now() > deadline) throw new Error('docker-registry did not start in 60 s');
    await sleep(100);
  }
  return {
    host,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** What a test image holds and says about itself. */
export interface TestImage {
  /** Files to add, by path inside the image (relative to its root). */
  files?: Record<string, string>;
  entrypoint?: string[];
  cmd?: string[];
  env?: string[];
  exposedPorts?: string[];
  workingDir?: string;
  /** Run on the root folder before it is packed (hostile layers make their entries here). */
  prepare?: (root: string) => Promise<void>;
}

/** The busybox applets a test image has as /bin/<name>. */
const APPLETS = [
  'sh',
  'cat',
  'env',
  'ls',
  'httpd',
  'echo',
  'sleep',
  'mkdir',
  'id',
  'pwd',
  'grep',
  'tail',
  'head',
  'setsid',
  'stat',
  'touch',
  'df',
  'du',
  'hostname',
];

/**
 * Builds an OCI image of busybox in `work` and pushes it to `registry` as `name:tag`
 * (`creds`: USER:PASS of an authenticated registry).
 */
export async function pushBusyboxImage(
  work: string,
  registry: string,
  nameAndTag: string,
  image: TestImage,
  creds?: string,
): Promise<void> {
  const layout = join(work, 'layout');
  const root = join(work, 'root');
  await mkdir(join(root, 'bin'), { recursive: true });
  await copyFile('/bin/busybox', join(root, 'bin', 'busybox'));
  for (const applet of APPLETS) await symlink('busybox', join(root, 'bin', applet));
  // As in Alpine, Debian and Ubuntu: commands in a VM start through /usr/bin/env.
  await mkdir(join(root, 'usr', 'bin'), { recursive: true });
  await symlink('/bin/busybox', join(root, 'usr', 'bin', 'env'));
  for (const [path, text] of Object.entries(image.files ?? {})) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  await image.prepare?.(root);
  await run('umoci', ['init', '--layout', layout]);
  await run('umoci', ['new', '--image', `${layout}:img`]);
  await run('umoci', ['insert', '--image', `${layout}:img`, root, '/']);
  const config = [
    ...(image.entrypoint ?? []).flatMap((w) => ['--config.entrypoint', w]),
    ...(image.cmd ?? []).flatMap((w) => ['--config.cmd', w]),
    ...(image.env ?? []).flatMap((e) => ['--config.env', e]),
    ...(image.exposedPorts ?? []).flatMap((p) => ['--config.exposedports', p]),
    ...(image.workingDir === undefined ? [] : ['--config.workingdir', image.workingDir]),
  ];
  if (config.length > 0) await run('umoci', ['config', '--image', `${layout}:img`, ...config]);
  await run('skopeo', [
    'copy',
    '--quiet',
    '--dest-tls-verify=false',
    ...(creds === undefined ? [] : ['--dest-creds', creds]),
    `oci:${layout}:img`,
    `docker://${registry}/${nameAndTag}`,
  ]);
}
