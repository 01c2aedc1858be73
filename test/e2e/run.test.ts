// `exectl run` as a user runs it (the built CLI) against a real service: the exit code and the
// one stderr line of every status, the token sources, and the scope of an auto-minted token.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { postExec } from '../../src/cli/exec/http.js';
import { mintRequestToken } from '../../src/cli/exec/token.js';
import { loadPrivateKey, parsePublicKey } from '../../src/token/keys.js';
import { generateKey } from '../helpers/keys.js';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, assertOneLineError, exectl, type CliResult } from './harness.js';

const FAR = 4_000_000_000;

let svc: TestService;
let home: string;

before(async () => {
  assertBuilt();
  svc = await startTestService();
  // The user's home holds the owner's key as the default key: `run` mints with it.
  home = await homeWithOwnerKey(svc);
});
after(() => svc.stop());

function run(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return exectl(['--url', svc.url, 'run', ...args], { home, env });
}

/** Success: exit 0, nothing on stderr, the server's compact JSON line on stdout. */
function assertJsonLine(result: CliResult): unknown {
  assert.deepEqual([result.code, result.stderr], [0, ''], result.stderr);
  const value: unknown = JSON.parse(result.stdout);
  assert.equal(result.stdout, `${JSON.stringify(value)}\n`, 'raw compact JSON through a pipe');
  return value;
}

describe('exit code and message of each status (SPEC §8)', () => {
  test('200: whoami with a token minted on the spot', async () => {
    const whoami = assertJsonLine(await run(['whoami'])) as { email: string; ssh_keys: unknown[] };
    assert.equal(whoami.email, 'owner@example.com');
  });

  test('200: one argument is a command line; several are words', async () => {
    const one = assertJsonLine(await run(['ssh-key list'])) as { ssh_keys: { name: string }[] };
    const two = assertJsonLine(await run(['ssh-key', 'list'])) as typeof one;
    assert.deepEqual(
      one.ssh_keys.map((k) => k.name),
      ['default'],
    );
    assert.deepEqual(
      two.ssh_keys.map((k) => k.name),
      ['default'],
    );
  });

  test('400 → 2: a line that does not lex', async () => {
    assertOneLineError(
      await run(["comment web 'unclosed"]),
      2,
      'invalid command syntax: unterminated single quote — check the command line: quotes must be balanced (see exectl-run(1))',
    );
  });

  test('401 → 3: each names the key that signed and where it came from', async () => {
    const expired = await svc.token('{"exp":1000000000}');
    const owner = fingerprintOfKey(svc.owner.key.publicKeyLine);
    const hint = '`exectl auth status` shows which key signs and whether the server knows it';
    assertOneLineError(
      await run(['--token', expired, 'whoami']),
      3,
      `invalid token: expired (the token given with --token (signed by key ${owner})) — mint a new one (\`exectl mint\`), or leave out --token and EXECTL_TOKEN: exectl then mints one per command`,
    );
    assertOneLineError(
      await run(['whoami'], { EXECTL_TOKEN: 'svc1.AAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      3,
      `invalid token (the token from EXECTL_TOKEN) — ${hint}`,
    );
    const stranger = await generateKey(svc.dir.path, 'ed25519', { name: 'stranger' });
    const strange = fingerprintOfKey(stranger.publicKeyLine);
    assertOneLineError(
      await run(['--key', stranger.path, 'whoami']),
      3,
      `invalid token (key ${strange} from file ${stranger.path}) — ${hint}`,
    );
  });

  test('401 → 3: a VM token sent to /exec names the VM and the namespace it was made for', async () => {
    const vmToken = await svc.token(`{"exp":${FAR}}`, svc.owner.key, 'v0@web.localhost');
    const owner = fingerprintOfKey(svc.owner.key.publicKeyLine);
    assertOneLineError(
      await run(['whoami'], { EXECTL_TOKEN: vmToken }),
      3,
      `invalid token (the token from EXECTL_TOKEN (signed by key ${owner})) — the token was made for vm "web" (namespace v0@web.localhost), not for /exec (v0@localhost): send it to the VM's URL, or mint one without --vm`,
    );
    const other = await svc.token(`{"exp":${FAR}}`, svc.owner.key, 'v0@example.org');
    assertOneLineError(
      await run(['--token', other, 'whoami']),
      3,
      `invalid token (the token given with --token (signed by key ${owner})) — the token was made for namespace v0@example.org, not for this server's /exec (v0@localhost): mint one for it (\`exectl mint\`)`,
    );
  });

  test('403 → 4: the token does not allow the command', async () => {
    const token = await svc.token(`{"exp":${FAR},"cmds":["whoami"]}`);
    assertOneLineError(
      await run(['--token', token, 'ssh-key', 'list']),
      4,
      `command not allowed: ssh-key list — the token's cmds do not include "ssh-key list": mint one with --cmds "ssh-key list"`,
    );
  });

  test('404 → 5: no such command', async () => {
    assertOneLineError(
      await run(['frobnicate', 'now']),
      5,
      'unknown command: frobnicate — run `exectl run help` to list the commands',
    );
  });

  test("404 → 5: a likely typo gets the server's suggestion as a command to type", async () => {
    assertOneLineError(
      await run(['lss']),
      5,
      'unknown command: lss — did you mean `exectl run ls`?',
    );
    assertOneLineError(
      await run(['ssh-key', 'lst']),
      5,
      'unknown command: ssh-key lst — did you mean `exectl run ssh-key list`?',
    );
  });

  test('422 → 1: not found says where to see what there is, not "see help"', async () => {
    assertOneLineError(
      await run(['comment', 'nope', 'hello there']),
      1,
      'vm "nope" not found — run `exectl run ls` to see yours',
    );
    assertOneLineError(
      await run(['ssh-key', 'remove', 'nokey']),
      1,
      'ssh key "nokey" not found — run `exectl run ssh-key list` to see yours',
    );
  });

  test("422 → 1: bad arguments still point at the command's help", async () => {
    assertOneLineError(
      await run(['whoami', 'extra']),
      1,
      'unexpected argument "extra" — see `exectl run help whoami`',
    );
  });

  test('422 → 1: a change only the owner may make names whom to ask', async () => {
    assert.equal((await run(['new', '--name', 'shared-vm'])).code, 0);
    assert.equal((await run(['share', 'add', 'shared-vm', 'guest@example.com'])).code, 0);
    const guest = await svc.addAccount('guest@example.com');
    assertOneLineError(
      await run(['--key', guest.path, 'comment', 'shared-vm', 'hi']),
      1,
      'only the owner of vm "shared-vm" can change its comment — ask its owner, owner@example.com',
    );
    assertOneLineError(
      await run(['--key', guest.path, 'comment', 'not-shared', 'hi']),
      1,
      'vm "not-shared" not found — run `exectl run ls` to see yours',
    );
    assert.equal((await run(['rm', 'shared-vm'])).code, 0, 'later tests expect no VM');
  });

  test("422 → 1 with a result: rm's partial result on stdout, its first failure on stderr", async () => {
    assert.equal((await run(['new', '--name', 'doomed'])).code, 0);
    const result = await run(['rm', 'doomed', 'nope']);
    assert.deepEqual(
      { code: result.code, stdout: JSON.parse(result.stdout) as unknown, stderr: result.stderr },
      {
        code: 1,
        stdout: {
          deleted: ['doomed'],
          failed: [{ vm_name: 'nope', error: 'vm "nope" not found' }],
        },
        stderr: 'exectl: vm "nope" not found — its result is on stdout\n',
      },
    );
  });

  test('unreachable → 8: a safe command is tried 3 times, a changing one once', async () => {
    const url = 'http://127.0.0.1:9';
    const ls = await exectl(['--url', url, 'run', 'ls'], { home });
    assert.equal(ls.code, 8);
    assert.equal(
      ls.stderr,
      `exectl: cannot reach ${url}: connection refused — trying again in 0.25s (try 2 of 3)\n` +
        `exectl: cannot reach ${url}: connection refused — trying again in 0.75s (try 3 of 3)\n` +
        `exectl: cannot reach ${url}: connection refused — is \`exectl serve\` running? check --url / EXECTL_URL\n`,
    );
    assertOneLineError(
      await exectl(['--url', url, 'run', 'new', '--name', 'web'], { home }),
      8,
      `cannot reach ${url}: connection refused — is \`exectl serve\` running? check --url / EXECTL_URL`,
    );
  });

  test('usage → 2: no command line, an empty one, --json with --raw', async () => {
    assertOneLineError(
      await run([]),
      2,
      `missing required argument 'command-line' — see "exectl run --help"`,
    );
    assertOneLineError(
      await run(['  ']),
      2,
      'the command line is empty — give a command, e.g. exectl run whoami',
    );
    assertOneLineError(
      await run(['--json', '--raw', 'ls']),
      2,
      `option '--raw' cannot be used with option '--json' — see "exectl run --help"`,
    );
  });
});

describe('where the token comes from', () => {
  test('EXECTL_TOKEN, then --token over it', async () => {
    const onlyWhoami = await svc.token(`{"exp":${FAR},"cmds":["whoami"]}`);
    const onlyLs = await svc.token(`{"exp":${FAR},"cmds":["ls"]}`);
    assertJsonLine(await run(['whoami'], { EXECTL_TOKEN: onlyWhoami }));
    assert.equal((await run(['ls'], { EXECTL_TOKEN: onlyWhoami })).code, 4);
    assertJsonLine(await run(['--token', onlyLs, 'ls'], { EXECTL_TOKEN: onlyWhoami }));
  });

  test("the profile's token", async () => {
    const onlyLs = await svc.token(`{"exp":${FAR},"cmds":["ls"]}`);
    await mkdir(svc.dir.join('home', '.config', 'exectl'), { recursive: true });
    await writeFile(
      svc.dir.join('home', '.config', 'exectl', 'config.json'),
      JSON.stringify({ profiles: { ci: { url: svc.url, token: onlyLs } } }),
    );
    const ls = await exectl(['--profile', 'ci', 'run', 'ls'], { home });
    assert.deepEqual(assertJsonLine(ls), { vms: [] });
    assert.equal((await exectl(['--profile', 'ci', 'run', 'whoami'], { home })).code, 4);
  });

  test('a minted token allows exactly its command on the real service', async () => {
    const signer = await loadPrivateKey(svc.owner.key.path, { passphrase: async () => undefined });
    const token = await mintRequestToken({
      signer,
      namespace: 'v0@localhost',
      scope: 'whoami',
      nowSeconds: Math.floor(Date.now() / 1000),
    });
    const whoami = await postExec(svc.url, token, 'whoami');
    assert.equal(whoami.status, 200);
    const ls = await postExec(svc.url, token, 'ls');
    assert.deepEqual(
      [ls.status, ls.body.toString('utf8')],
      [403, '{"error":"command not allowed: ls"}\n'],
    );
  });

  test('the service log never holds a token or a signature', () => {
    assert.ok(svc.logs.length > 0);
    for (const line of svc.logs) assert.ok(!/svc[01]\./.test(line), line);
  });
});

function fingerprintOfKey(publicKeyLine: string): string {
  return parsePublicKey(publicKeyLine).fingerprint;
}

describe('generate-api-key through run: the request token lives as long as the key asked for', () => {
  // The service refuses a key that outlives the request's token (issue 25); the token `run`
  // mints on the spot must therefore cover the --exp asked for, or its 30-day default.
  test('no --exp: 30 days; --exp 7d: 7 days; --exp never: no end', async () => {
    const cases: [args: string[], days: number | null][] = [
      [['--label', 'e2e-default'], 30],
      [['--label', 'e2e-week', '--exp', '7d'], 7],
      [['--label', 'e2e-never', '--exp', 'never'], null],
    ];
    for (const [args, days] of cases) {
      const before = Math.floor(Date.now() / 1000);
      const made = assertJsonLine(await run(['ssh-key', 'generate-api-key', ...args])) as {
        expires_at: string | null;
      };
      if (days === null) {
        assert.equal(made.expires_at, null);
        continue;
      }
      const expiresAt = Date.parse(made.expires_at!) / 1000;
      // Judged by the server's clock, a little after `before`: a minute of margin.
      assert.ok(expiresAt >= before + days * 86400, made.expires_at!);
      assert.ok(expiresAt <= before + days * 86400 + 60, made.expires_at!);
    }
  });
});
