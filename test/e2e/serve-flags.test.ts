// `exectl serve` flags and their EXECTL_* variables: bad values are one-line usage errors
// (exit 2) that leave nothing behind; variables are honoured and flags win over them; the
// owner comes from --owner, git or $USER, the keys from --authorized-key or ~/.ssh/*.pub.
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generateKey, mintWithShellRecipe, run, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';
import { TEST_FLAGS, bannerValue, curlExec, startServe, stopAll, userEnv } from './serve-server.js';

let dir: TempDir;
let key: GeneratedKey;
let other: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-serve-flags');
  key = await generateKey(dir.path, 'ed25519', { name: 'me', comment: 'me@desk' });
  other = await generateKey(dir.path, 'rsa-2048', { name: 'other', comment: 'me@ci' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

/** A real listener on a free loopback port, standing for another program that holds it. */
async function holdPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const fingerprint = async (k: GeneratedKey) =>
  (await run('ssh-keygen', ['-lf', k.pubPath])).stdout.split(' ')[1]!;

describe('bad values: exit 2, one line, nothing started', () => {
  const LISTEN_HINT = 'use HOST:PORT, [IPv6]:PORT or PORT; port 0 picks a free one';
  const cases: [string[], Record<string, string>, string][] = [
    [
      ['--listen', 'nope'],
      {},
      `--listen: invalid listen address "nope": expected HOST:PORT such as 127.0.0.1:7070 — ${LISTEN_HINT}`,
    ],
    [
      ['--ssh-listen', '127.0.0.1:99999'],
      {},
      `--ssh-listen: invalid listen address "127.0.0.1:99999": expected HOST:PORT such as 127.0.0.1:7070 — ${LISTEN_HINT}, or "off"`,
    ],
    [
      [],
      { EXECTL_REFLECTION_LISTEN: 'x:y' },
      `EXECTL_REFLECTION_LISTEN: invalid listen address "x:y": expected HOST:PORT such as 127.0.0.1:7070 — ${LISTEN_HINT}`,
    ],
    [
      ['--runtime', 'docker'],
      {},
      '--runtime: invalid value "docker" — use one of auto, bwrap, process',
    ],
    [
      [],
      { EXECTL_LOG_LEVEL: 'loud' },
      'EXECTL_LOG_LEVEL: invalid value "loud" — use one of debug, info, warn, error',
    ],
    [
      ['--rate-limit', '5'],
      {},
      '--rate-limit: invalid rate limit "5": expected N/DURATION such as 60/60s, or 0 — N requests per DURATION (500ms, 30s, 15m, 1h, 7d…), e.g. 60/60s; 0 turns it off',
    ],
    [
      ['--domain', 'Ex_ample'],
      {},
      '--domain: invalid domain "Ex_ample" — use lowercase DNS labels separated by dots, e.g. localhost or exectl.test',
    ],
    [['--owner', 'nobody'], {}, '--owner: invalid email "nobody" — e.g. --owner you@example.com'],
    [
      ['--max-vm-memory', '100X'],
      {},
      '--max-vm-memory: invalid size "100X" — a size such as 8G or 512M, at least 32M',
    ],
    [
      [],
      { EXECTL_MAX_VM_DISK: '1M' },
      'EXECTL_MAX_VM_DISK: invalid size "1M" — a size such as 8G or 512M, at least 64M',
    ],
    [
      ['--max-vm-cpus', 'all'],
      {},
      '--max-vm-cpus: invalid number of CPUs "all" — a number such as 4 or 0.5',
    ],
    [
      ['--max-vms-per-account', '0'],
      {},
      '--max-vms-per-account: invalid number of VMs "0" — a whole number, at least 1, such as 32',
    ],
    [
      [],
      { EXECTL_MAX_VMS_PER_ACCOUNT: 'many' },
      'EXECTL_MAX_VMS_PER_ACCOUNT: invalid number of VMs "many" — a whole number, at least 1, such as 32',
    ],
    [
      ['--tls-cert', 'cert.pem'],
      {},
      '--tls-cert needs --tls-key too — give both the certificate and its private key, or neither for plain HTTP',
    ],
    [
      ['--data', 'd', '--ephemeral'],
      {},
      '--data and --ephemeral cannot be used together — keep the data in a folder, or in a temporary one removed at exit, not both',
    ],
    [
      [],
      { EXECTL_EPHEMERAL: 'maybe' },
      'EXECTL_EPHEMERAL="maybe" is not a yes/no value — use 1 or 0',
    ],
    [
      [],
      { EXECTL_ALLOW_PRIVATE_TARGETS: 'maybe' },
      'EXECTL_ALLOW_PRIVATE_TARGETS="maybe" is not a yes/no value — use 1 or 0',
    ],
    [['--bogus'], {}, `unknown option '--bogus' — see "exectl serve --help"`],
    [['extra'], {}, `unknown command: serve extra — see "exectl serve --help"`],
  ];
  for (const [args, env, line] of cases) {
    test(line, async () => {
      const result = await exectl(['serve', ...args], {
        home: dir.path,
        env: userEnv(dir.path, env),
      });
      assertOneLineError(result, 2, line);
    });
  }

  test('input files are checked before anything starts', async () => {
    const bad = dir.join('bad-seed.json');
    await writeFile(bad, '{"accounts":[{"email":"x"}]}');
    const missing = dir.join('missing');
    const results = [
      [
        ['--seed', missing],
        `--seed ${missing} cannot be read (ENOENT) — check the path and its permissions`,
      ],
      [
        ['--seed', bad],
        `--seed ${bad}: accounts[0].email: invalid email "x" — fix the seed file; its format is in exectl-serve(1), section SEED FILE`,
      ],
      [
        ['--authorized-key', missing],
        `--authorized-key ${missing} cannot be read (ENOENT) — check the path and its permissions`,
      ],
      [
        ['--tls-cert', missing, '--tls-key', key.path],
        `--tls-cert ${missing} cannot be read (ENOENT) — check the path and its permissions`,
      ],
    ] as const;
    const data = dir.join('never-made');
    for (const [args, line] of results) {
      const result = await exectl(['serve', '--data', data, ...args], {
        home: dir.path,
        env: userEnv(dir.path),
      });
      assertOneLineError(result, 2, line);
    }
    assert.deepEqual(await readdir(dir.path).then((names) => names.includes('never-made')), false);
  });

  test('a port in use: exit 2, and the ephemeral folder is removed', async () => {
    const tmp = dir.join('tmp');
    await mkdir(tmp);
    const first = await startServe(['--ephemeral', ...TEST_FLAGS, '--owner', 'me@example.com'], {
      home: dir.path,
    });
    const port = new URL(first.url).port;
    const result = await exectl(
      ['serve', '--ephemeral', ...TEST_FLAGS, '--listen', `127.0.0.1:${port}`],
      {
        home: dir.path,
        env: userEnv(dir.path, { TMPDIR: tmp }),
      },
    );
    assertOneLineError(
      result,
      2,
      `cannot listen: 127.0.0.1:${port} (--listen) is in use — pass another port, e.g. --listen 127.0.0.1:0`,
    );
    assert.deepEqual(await readdir(tmp), []);
    await first.stop();
  });

  test('every busy port in one line, each with the flag that moves it', async () => {
    // Real listeners hold the ports, as another program would.
    const held = await Promise.all([0, 1, 2].map(() => holdPort()));
    const [web, ssh, reflection] = held.map((h) => h.port);
    try {
      const result = await exectl(
        [
          'serve',
          '--ephemeral',
          '--runtime',
          'process',
          '--listen',
          `127.0.0.1:${web}`,
          '--ssh-listen',
          `127.0.0.1:${ssh}`,
          '--reflection-listen',
          `127.0.0.1:${reflection}`,
          '--smtp-listen',
          'off',
        ],
        { home: dir.path, env: userEnv(dir.path) },
      );
      assertOneLineError(
        result,
        2,
        `cannot listen: 127.0.0.1:${web} (--listen), 127.0.0.1:${ssh} (--ssh-listen) and 127.0.0.1:${reflection} (--reflection-listen) are in use — pass other ports, e.g. --listen 127.0.0.1:0`,
      );
    } finally {
      await Promise.all(held.map((h) => h.close()));
    }
  });
});

describe('environment variables', () => {
  test('every setting from EXECTL_*: domain, owner, keys, rate limit, log level', async () => {
    const server = await startServe([], {
      home: dir.path,
      env: {
        EXECTL_LISTEN: '127.0.0.1:0',
        EXECTL_SSH_LISTEN: 'off',
        EXECTL_REFLECTION_LISTEN: '127.0.0.1:0',
        EXECTL_RUNTIME: 'process',
        EXECTL_EPHEMERAL: '1',
        EXECTL_OWNER: 'env@example.com',
        EXECTL_AUTHORIZED_KEY: `${key.pubPath}:${other.pubPath}`,
        EXECTL_DOMAIN: 'exectl.test',
        EXECTL_RATE_LIMIT: '1/1h',
        EXECTL_LOG_LEVEL: 'warn',
        // No exectl on PATH: the banner's first command goes through npx.
        PATH: '/usr/bin:/bin',
      },
    });
    const banner = server.stderr();
    assert.equal(bannerValue(banner, 'Owner'), 'env@example.com  (account created now)');
    assert.ok(banner.includes(`  Keys        ${await fingerprint(key)}  me@desk\n`), banner);
    assert.ok(banner.includes(`              ${await fingerprint(other)}  me@ci\n`), banner);
    assert.ok(
      banner.includes(
        `  Try:  EXECTL_NAMESPACE=v0@exectl.test npx exectl run --url ${server.url} whoami\n`,
      ),
    );

    const payload = JSON.stringify({ cmds: ['whoami'] });
    const wrongDomain = await mintWithShellRecipe(key, payload, 'v0@localhost');
    assert.equal((await curlExec(server.url, wrongDomain, 'whoami')).status, 401);
    const token = await mintWithShellRecipe(key, payload, 'v0@exectl.test');
    assert.equal((await curlExec(server.url, token, 'whoami')).status, 200);
    const limited = await curlExec(server.url, token, 'whoami');
    assert.deepEqual(limited, { status: 429, body: '{"error":"rate limit exceeded"}\n' });

    // Request lines are info: none at --log-level warn.
    assert.equal(server.stderr(), banner);
    assert.equal((await server.stop()).code, 0);
  });

  test('a flag wins over its variable', async () => {
    const server = await startServe(['--ephemeral', ...TEST_FLAGS, '--owner', 'flag@example.com'], {
      home: dir.path,
      env: {
        EXECTL_OWNER: 'env@example.com',
        EXECTL_LISTEN: 'not-an-address',
        EXECTL_DATA: dir.join('unused'),
      },
    });
    assert.equal(bannerValue(server.stderr(), 'Owner'), 'flag@example.com  (account created now)');
    await server.stop();
  });
});

describe('HTTPS', () => {
  test('--tls-cert and --tls-key serve /exec over TLS', async () => {
    const cert = dir.join('cert.pem');
    const tlsKey = dir.join('key.pem');
    const made = await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      tlsKey,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    assert.equal(made.code, 0, made.stderr);
    const server = await startServe(
      [
        '--ephemeral',
        ...TEST_FLAGS,
        '--owner',
        'me@example.com',
        '--authorized-key',
        key.pubPath,
        '--tls-cert',
        cert,
        '--tls-key',
        tlsKey,
      ],
      { home: dir.path },
    );
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const token = await mintWithShellRecipe(key, '{"cmds":["whoami"]}', 'v0@localhost');
    const answer = await run('curl', [
      '-sS',
      '--cacert',
      cert,
      '-H',
      `Authorization: Bearer ${token}`,
      '--data-binary',
      'whoami',
      `${server.url}/exec`,
    ]);
    assert.equal(answer.code, 0, answer.stderr);
    assert.equal((JSON.parse(answer.stdout) as { email: string }).email, 'me@example.com');
    await server.stop();
  });
});

describe('the owner of a fresh data folder', () => {
  test('from git config user.email, with every ~/.ssh/*.pub (unusable ones skipped, said so)', async () => {
    const home = dir.join('git-home');
    await mkdir(home + '/.ssh', { recursive: true });
    await writeFile(`${home}/.gitconfig`, '[user]\n\temail = git@example.com\n');
    const mine = await generateKey(`${home}/.ssh`, 'ed25519', {
      name: 'id_ed25519',
      comment: 'me@home',
    });
    await writeFile(`${home}/.ssh/broken.pub`, 'ssh-ed25519 not-base64!\n');
    const server = await startServe(['--ephemeral', ...TEST_FLAGS], { home });
    const banner = server.stderr();
    assert.ok(
      banner.startsWith(
        `exectl: warning: skipping ${home}/.ssh/broken.pub: not an SSH public key\nexectl serve is ready\n`,
      ),
      banner,
    );
    assert.equal(bannerValue(banner, 'Owner'), 'git@example.com  (account created now)');
    assert.equal(bannerValue(banner, 'Keys'), `${await fingerprint(mine)}  me@home`);
    await server.stop();
  });

  test('else $USER@localhost, and a loud warning when there is no key at all', async () => {
    const home = dir.join('bare-home');
    await mkdir(home);
    const server = await startServe(['--ephemeral', ...TEST_FLAGS], { home });
    assert.equal(bannerValue(server.stderr(), 'Owner'), 'tester@localhost  (account created now)');
    assert.ok(
      server
        .stderr()
        .includes('  WARNING: tester@localhost has no SSH key registered: nobody can sign in.\n'),
    );
    await server.stop();
  });
});
