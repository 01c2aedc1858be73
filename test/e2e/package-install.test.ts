// The published shape (SPEC §10): `npm pack`, then the tarball installed into an empty project
// gives `exectl` on PATH and `import { startServer } from 'exectl'` with its types — checked
// by `tsc` on a consumer file with strict options and no skipLibCheck, and by running it.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { execFile } from 'node:child_process';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt } from './harness.js';

/** Runs `program` in `cwd`; resolves with its exit code and output, whatever they are. */
function run(
  program: string,
  args: readonly string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(program, args, { ...opts, maxBuffer: 64 * 2 ** 20 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

let dir: TempDir;
let project: string;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-package');
  project = dir.join('consumer');
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir.path], {
    cwd: REPO,
  });
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = readdirSync(dir.path).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball !== undefined, 'npm pack made a tarball');

  writeFileSync(
    join(dir.path, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }),
  );
  // The dependencies come from this checkout's node_modules, so the install needs no network
  // (and no native build): npm sees them present and keeps them.
  const listed = await run('npm', ['ls', '--all', '--omit=dev', '--parseable'], { cwd: REPO });
  for (const path of listed.stdout.split('\n').filter((p) => p.startsWith(`${REPO}/`))) {
    cpSync(path, join(project, relative(REPO, path)), { recursive: true });
  }
  cpSync(join(dir.path, 'package.json'), join(project, 'package.json'));
  const installed = await run(
    'npm',
    ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', `../${tarball}`],
    { cwd: project },
  );
  assert.equal(installed.code, 0, installed.stderr);
});
after(() => dir.remove());

const onPath = () => ({ ...process.env, PATH: `${project}/node_modules/.bin:${process.env.PATH}` });

test('exectl is on PATH', async () => {
  const version = await run('exectl', ['--version'], { cwd: project, env: onPath() });
  assert.deepEqual([version.code, version.stdout], [0, '0.1.0\n']);
  const help = await run('exectl', ['serve', 'export', '--help'], { cwd: project, env: onPath() });
  assert.match(help.stdout, /^Usage: exectl serve export \[options\]/);
});

const CONSUMER = `import { Client, ExecError, decode, loadPrivateKey, mint, parsePublicKey } from 'exectl';
import { serializePermissions, startServer, verify, type RunningServer } from 'exectl';

const server: RunningServer = await startServer({ sshListen: 'off' });
const client = new Client({ url: server.url, token: await server.mint({ cmds: ['whoami'] }) });
const me = (await client.exec('whoami')) as { email: string };
server.faults.add({ command: 'whoami', status: 503, times: 1 });
const failed = await client.exec('whoami').catch((err: ExecError) => [err.status, err.code]);

// The token library on its own: mint with the owner's key, decode, verify against it.
const signer = await loadPrivateKey(server.ownerKey.privateKeyPath, {
  passphrase: async () => undefined,
});
const token = await mint(serializePermissions({ cmds: ['ls'] }), signer, 'v0@localhost');
const key = parsePublicKey(server.ownerKey.publicKey);
const verified = verify(token, {
  namespace: 'v0@localhost',
  nowSeconds: Math.floor(Date.now() / 1000),
  findKey: (fingerprint) => (fingerprint === key.fingerprint ? key : undefined),
});
const cmds: readonly string[] | undefined = decode(token).permissions.cmds;
console.log(JSON.stringify([me.email, failed, cmds, verified.fingerprint === key.fingerprint]));
await server.stop();
`;

test('import { startServer, mint, decode, verify } from "exectl" type-checks and runs', async () => {
  writeFileSync(join(project, 'consumer.ts'), CONSUMER);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        typeRoots: [join(REPO, 'node_modules/@types')],
        types: ['node'],
      },
      files: ['consumer.ts'],
    }),
  );
  const tsc = await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc')], {
    cwd: project,
  });
  assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);
  const ran = await run(process.execPath, ['out/consumer.js'], { cwd: project });
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(
    ran.stdout,
    `${JSON.stringify(['owner@localhost', [503, 'unavailable'], ['ls'], true])}\n`,
  );
});
