// `exectl serve --compat exe.dev` (SPEC §12), end to end with the BUILT CLI: code written for
// the real service (its shell recipe, its curl calls; real ssh-keygen and curl) runs against the
// emulator with only its base URL changed, and a server without the flag accepts none of it.
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateKey, run, sshKeygenVerify, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';
import {
  bannerValue,
  curlExec,
  launchServe,
  startServe,
  stopAll,
  TEST_FLAGS,
  type ServeProcess,
} from './serve-server.js';

const RECIPE = join(import.meta.dirname, 'real-service', 'recipe.sh');
const LIFECYCLE = join(import.meta.dirname, 'real-service', 'lifecycle.sh');
const OWNER = 'ada@example.com';

/** A payload signed with the real service's names: `exe0.` and the namespace given. */
async function exe0Token(key: GeneratedKey, payload: string, namespace: string): Promise<string> {
  const armored = await run('ssh-keygen', ['-Y', 'sign', '-f', key.path, '-n', namespace], {
    input: payload,
  });
  assert.equal(armored.code, 0, armored.stderr);
  const blob = armored.stdout.split('\n').slice(1, -2).join('');
  const b64url = (text: string) =>
    text.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
  return `exe0.${b64url(Buffer.from(payload).toString('base64'))}.${b64url(blob)}`;
}

describe('serve --compat exe.dev (SPEC §12)', () => {
  let dir: TempDir;
  let key: GeneratedKey;
  let compat: ServeProcess;
  let plain: ServeProcess;
  const exp = () => Math.floor(Date.now() / 1000) + 3600;

  before(async () => {
    assertBuilt();
    dir = await createTempDir('compat');
    await mkdir(dir.join('.ssh'));
    // The real service's docs name the API key ~/.ssh/exe_dev_api.
    key = await generateKey(dir.join('.ssh'), 'ed25519', { name: 'exe_dev_api', comment: 'api' });
    const common = [
      '--ephemeral',
      ...TEST_FLAGS,
      '--owner',
      OWNER,
      '--authorized-key',
      key.pubPath,
    ];
    compat = await startServe([...common, '--compat', 'exe.dev'], { home: dir.path });
    plain = await startServe(common, { home: dir.path });
  });
  after(async () => {
    await stopAll();
    await dir?.remove();
  });

  const recipe = (url: string) =>
    run('bash', [RECIPE], { env: { KEY: key.path, BASE_URL: url, HOME: dir.path } });

  test('the banner says what is spoken: exe.dev names, v0@exe.dev, VMs under exe.xyz', () => {
    assert.equal(
      bannerValue(compat.stderr(), 'Compat'),
      'exe.dev: its token prefixes, command names and headers too',
    );
    assert.equal(bannerValue(compat.stderr(), 'Namespaces'), 'v0@exe.dev, VMs v0@<vm>.exe.xyz');
    assert.doesNotMatch(plain.stderr(), /Compat/);
  });

  test("the banner's first command works when pasted", async () => {
    const line = compat.stderr().match(/^ {2}Try: {2}(.*)$/m)![1]!;
    assert.match(line, /^EXECTL_NAMESPACE=v0@exe\.dev npx exectl run --url http:\S+ whoami$/);
    const bin = join(import.meta.dirname, '..', '..', 'bin', 'exectl.cjs');
    const pasted = await run('bash', ['-c', line.replace('npx exectl', `node ${bin}`)], {
      env: { HOME: dir.path, XDG_CONFIG_HOME: dir.join('.config'), EXECTL_KEY: key.path },
    });
    assert.equal(pasted.code, 0, pasted.stderr);
    assert.match(pasted.stdout, /ada@example\.com/);
  });

  test("the real service's shell recipe runs whoami; without --compat it gets 401", async () => {
    const ran = await recipe(compat.url);
    assert.equal(ran.code, 0, ran.stderr);
    const whoami = JSON.parse(ran.stdout) as { email: string };
    assert.equal(whoami.email, OWNER);

    const refused = await recipe(plain.url);
    assert.equal(refused.code, 0, refused.stderr);
    assert.equal(refused.stdout, '{"error":"invalid token: malformed"}\n');
    // The same payload signed for exectl's own names passes there: only the names differ.
    const svc0 = (await exe0Token(key, '{"cmds":["whoami"]}', 'v0@localhost')).replace(
      /^exe0\./,
      'svc0.',
    );
    assert.equal((await curlExec(plain.url, svc0, 'whoami')).status, 200);
  });

  test('exe0-to-exe1 answers a working exe1.; either name in cmds runs it; not without --compat', async () => {
    const whoami = await exe0Token(key, `{"exp":${exp()},"cmds":["whoami"]}`, 'v0@exe.dev');
    const byAlias = await exe0Token(key, `{"exp":${exp()},"cmds":["exe0-to-exe1"]}`, 'v0@exe.dev');
    const exchanged = await curlExec(compat.url, byAlias, `exe0-to-exe1 ${whoami}`);
    assert.equal(exchanged.status, 200, exchanged.body);
    const { token } = JSON.parse(exchanged.body) as { token: string };
    assert.match(token, /^exe1\.[A-Z2-7]{26}$/);
    const used = await curlExec(compat.url, token, 'whoami');
    assert.equal(used.status, 200, used.body);
    assert.equal((JSON.parse(used.body) as { email: string }).email, OWNER);

    // The same handle under exectl's names, whichever name the token lists.
    const svcName = await curlExec(compat.url, byAlias, `svc0-to-svc1 ${whoami}`);
    assert.equal(svcName.status, 200, svcName.body);
    assert.equal((JSON.parse(svcName.body) as { token: string }).token, `svc1.${token.slice(5)}`);
    const byOwnName = await exe0Token(
      key,
      `{"exp":${exp()},"cmds":["svc0-to-svc1"]}`,
      'v0@exe.dev',
    );
    const aliasByOwnName = await curlExec(compat.url, byOwnName, `exe0-to-exe1 ${whoami}`);
    assert.equal(aliasByOwnName.status, 200, aliasByOwnName.body);
    assert.equal(aliasByOwnName.body, `{"token":"${token}"}\n`);
    // A token listing neither may run neither.
    assert.deepEqual(await curlExec(compat.url, whoami, `exe0-to-exe1 ${whoami}`), {
      status: 403,
      body: '{"error":"command not allowed: exe0-to-exe1"}\n',
    });

    // Without --compat: no such command, and no exe1. token.
    const svc0 = (await exe0Token(key, '{"cmds":["exe0-to-exe1"]}', 'v0@localhost')).replace(
      /^exe0\./,
      'svc0.',
    );
    const unknown = await curlExec(plain.url, svc0, 'exe0-to-exe1 x');
    assert.equal(unknown.status, 404, unknown.body);
    assert.match(unknown.body, /^\{"error":"unknown command: exe0-to-exe1/);
    assert.deepEqual(await curlExec(plain.url, token, 'whoami'), {
      status: 401,
      body: '{"error":"invalid token: malformed"}\n',
    });
  });

  test('mint --prefix exe0 signs for v0@exe.dev (ssh-keygen -Y verify) and the server takes it', async () => {
    const minted = await exectl(
      ['mint', '--prefix', 'exe0', '--key', key.path, '--cmds', 'whoami', '--exp', '1h'],
      { home: dir.path },
    );
    assert.equal(minted.code, 0, minted.stderr);
    const token = minted.stdout.trim();
    const [prefix, payload, blob] = token.split('.');
    assert.equal(prefix, 'exe0');
    const armored = `-----BEGIN SSH SIGNATURE-----\n${Buffer.from(blob!, 'base64url')
      .toString('base64')
      .match(/.{1,70}/g)!
      .join('\n')}\n-----END SSH SIGNATURE-----\n`;
    const verified = await sshKeygenVerify({
      dir: dir.path,
      publicKeyLine: key.publicKeyLine,
      armoredSignature: armored,
      message: Buffer.from(payload!, 'base64url'),
      namespace: 'v0@exe.dev',
    });
    assert.ok(verified.ok, verified.stderr);
    assert.equal((await curlExec(compat.url, token, 'whoami')).status, 200);
    assert.equal((await curlExec(plain.url, token, 'whoami')).status, 401);

    // inspect reads it as the svc0 it spells.
    const inspected = await exectl(['inspect', '--json', token], { home: dir.path });
    assert.equal(inspected.code, 0, inspected.stderr);
    const report = JSON.parse(inspected.stdout) as Record<string, unknown>;
    assert.deepEqual(
      [report.kind, report.compat, report.namespace, report.valid, report.vm],
      ['svc0', 'exe.dev', 'v0@exe.dev', true, null],
    );
    const text = await exectl(['inspect', token], { home: dir.path });
    assert.match(text.stdout, /^kind {7}svc0 \(spelled as exe\.dev does\)$/m);

    // A VM token lives under the VM domain; --namespace still wins.
    const vm = await exectl(['mint', '--prefix', 'exe0', '--key', key.path, '--vm', 'web'], {
      home: dir.path,
    });
    const vmReport = await exectl(['inspect', '--json', vm.stdout.trim()], { home: dir.path });
    const vmFields = JSON.parse(vmReport.stdout) as Record<string, unknown>;
    assert.deepEqual([vmFields.namespace, vmFields.vm], ['v0@web.exe.xyz', 'web']);
    const own = await exectl(
      ['mint', '--prefix', 'exe0', '--key', key.path, '--namespace', 'v0@example.test'],
      { home: dir.path },
    );
    const ownReport = await exectl(['inspect', '--json', own.stdout.trim()], { home: dir.path });
    assert.equal(
      (JSON.parse(ownReport.stdout) as { namespace: string }).namespace,
      'v0@example.test',
    );

    assertOneLineError(
      await exectl(['mint', '--prefix', 'exe9', '--key', key.path], { home: dir.path }),
      2,
      '--prefix "exe9" is not a token prefix — use svc0 or exe0',
    );
  });

  test('mint --prefix exe0 --svc1 exchanges through exe0-to-exe1 for an exe1.', async () => {
    const logFrom = compat.stderr().length;
    const minted = await exectl(
      [
        'mint',
        '--prefix',
        'exe0',
        '--svc1',
        '--key',
        key.path,
        '--cmds',
        'whoami',
        '--url',
        compat.url,
      ],
      { home: dir.path },
    );
    assert.equal(minted.code, 0, minted.stderr);
    const token = minted.stdout.trim();
    assert.match(token, /^exe1\.[A-Z2-7]{26}$/);
    assert.equal((await curlExec(compat.url, token, 'whoami')).status, 200);
    await compat.waitForLine(/ cmd="exe0-to-exe1" status=200 /, logFrom);
  });

  test('a client written for the real service creates a VM, runs a command in it, deletes it', async () => {
    const out = await createTempDir('compat-out');
    try {
      const ran = await run('bash', [LIFECYCLE], {
        env: { KEY: key.path, BASE_URL: compat.url, OUT: out.path, HOME: dir.path },
      });
      assert.equal(ran.code, 0, ran.stderr);
      const read = (name: string) => readFile(out.join(name), 'utf8');
      const created = JSON.parse(await read('new.json')) as { vm_name: string };
      assert.equal(created.vm_name, 'lifecycle-vm');
      assert.equal(await read('ssh.out'), 'hello from the vm\n');
      const headers = (await read('ssh.headers')).toLowerCase();
      assert.match(headers, /^http\/1\.1 200 /);
      assert.match(headers, /^x-exec-exit: 0\r$/m);
      assert.match(headers, /^x-exe-exit: 0\r$/m);
      const failed = (await read('fail.headers')).toLowerCase();
      // 200 whatever the exit code, as the real service answers (SPEC §2).
      assert.match(failed, /^http\/1\.1 200 /);
      assert.match(failed, /^x-exec-exit: 1\r$/m);
      assert.match(failed, /^x-exe-exit: 1\r$/m);
      JSON.parse(await read('rm.json'));
      const listed = JSON.parse(await read('ls.json')) as { vms: { vm_name: string }[] };
      assert.deepEqual(listed.vms, []);
    } finally {
      await out.remove();
    }
  });

  test('without --compat, VM output carries X-Exec-Exit only', async () => {
    const svc0 = (
      await exe0Token(key, `{"exp":${exp()},"cmds":["new","ssh","rm"]}`, 'v0@localhost')
    ).replace(/^exe0\./, 'svc0.');
    assert.equal((await curlExec(plain.url, svc0, 'new --name=plain-vm')).status, 200);
    const r = await run('curl', [
      '-s',
      '-D',
      '-',
      '-o',
      '/dev/null',
      '-H',
      `Authorization: Bearer ${svc0}`,
      '-d',
      'ssh plain-vm true',
      `${plain.url}/exec`,
    ]);
    assert.match(r.stdout, /^X-Exec-Exit: 0\r$/m);
    assert.doesNotMatch(r.stdout, /x-exe-exit/i);
    assert.equal((await curlExec(plain.url, svc0, 'rm plain-vm')).status, 200);
  });
});

describe('serve --compat: its value is checked', () => {
  let dir: TempDir;
  before(async () => {
    assertBuilt();
    dir = await createTempDir('compat-flag');
  });
  after(async () => {
    await stopAll();
    await dir?.remove();
  });

  for (const [args, env, line] of [
    [['--compat', 'aws'], {}, '--compat: invalid value "aws" — use exe.dev'],
    [[], { EXECTL_COMPAT: 'exe.de' }, 'EXECTL_COMPAT: invalid value "exe.de" — use exe.dev'],
    [
      ['--compat', 'exe.dev', '--vm-domain', 'Exe.XYZ'],
      {},
      '--vm-domain: invalid domain "Exe.XYZ" — use lowercase DNS labels separated by dots, e.g. localhost or exectl.test',
    ],
  ] as const) {
    test(`${[...args, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)].join(' ')} is a usage error`, async () => {
      const launched = launchServe(['--ephemeral', ...TEST_FLAGS, ...args], {
        home: dir.path,
        env: { ...env },
      });
      const { code } = await launched.stop('SIGCONT');
      assert.equal(code, 2);
      assert.equal(launched.stderr(), `exectl: ${line}\n`);
    });
  }

  test('EXECTL_COMPAT=exe.dev and --vm-domain choose the names and the VM domain', async () => {
    const served = await startServe(['--ephemeral', ...TEST_FLAGS, '--vm-domain', 'vms.example'], {
      home: dir.path,
      env: { EXECTL_COMPAT: 'exe.dev' },
    });
    assert.equal(bannerValue(served.stderr(), 'Namespaces'), 'v0@exe.dev, VMs v0@<vm>.vms.example');
    await served.stop();
  });
});
