// exectl mint -> exectl inspect, end to end through the built CLI with real ssh-keygen keys.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  generateKey,
  mintWithShellRecipe,
  run,
  sshKeygenVerify,
  type GeneratedKey,
  type KeyKind,
} from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl, type CliResult } from './harness.js';

const TOKEN_LINE = /^svc0\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/;
const KINDS: readonly KeyKind[] = ['ed25519', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'rsa-2048'];
const SIGNER_TYPES: Record<string, string> = {
  ed25519: 'ssh-ed25519',
  'ecdsa-256': 'ecdsa-sha2-nistp256',
  'ecdsa-384': 'ecdsa-sha2-nistp384',
  'ecdsa-521': 'ecdsa-sha2-nistp521',
  'rsa-2048': 'ssh-rsa',
};

let dir: TempDir;
const keys = new Map<KeyKind, GeneratedKey>();

before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-mint');
  for (const kind of KINDS) keys.set(kind, await generateKey(dir.path, kind));
});
after(() => dir.remove());

function key(kind: KeyKind = 'ed25519'): GeneratedKey {
  return keys.get(kind)!;
}

const cli = (
  args: readonly string[],
  opts: { env?: Record<string, string>; input?: string } = {},
) => exectl(args, { home: dir.path, ...opts });

/** Mints with `args`, asserts the run printed exactly one token line, and returns the token. */
async function mint(args: readonly string[], env?: Record<string, string>): Promise<string> {
  const result = await cli(['mint', ...args], env === undefined ? {} : { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, TOKEN_LINE);
  return result.stdout.trim();
}

function payloadOf(token: string): string {
  return Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8');
}

async function fingerprintOf(k: GeneratedKey): Promise<string> {
  return (await run('ssh-keygen', ['-lf', k.pubPath])).stdout.split(' ')[1]!;
}

function parseJson(result: CliResult): Record<string, unknown> {
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('mint -> inspect round trip, for every key type', () => {
  for (const kind of KINDS) {
    test(kind, async () => {
      const token = await mint([
        '--key',
        key(kind).path,
        '--exp',
        '1900000000',
        '--cmds',
        'whoami',
      ]);
      assert.equal(payloadOf(token), '{"exp":1900000000,"cmds":["whoami"]}');
      const result = await cli(['inspect', '--json', '--verify', key(kind).pubPath, token]);
      assert.equal(result.code, 0, result.stderr);
      const report = parseJson(result);
      assert.equal(report.valid, true);
      assert.equal(report.signature_verified, true);
      assert.deepEqual(report.signer, {
        type: SIGNER_TYPES[kind],
        fingerprint: await fingerprintOf(key(kind)),
      });
    });
  }

  test('a minted token passes real `ssh-keygen -Y verify`', async () => {
    for (const kind of KINDS) {
      const token = await mint(['--key', key(kind).path, '--cmds', 'whoami,ls']);
      const blob = Buffer.from(token.split('.')[2]!, 'base64url').toString('base64');
      const armored = `-----BEGIN SSH SIGNATURE-----\n${blob.match(/.{1,70}/g)!.join('\n')}\n-----END SSH SIGNATURE-----\n`;
      const verified = await sshKeygenVerify({
        dir: dir.path,
        publicKeyLine: key(kind).publicKeyLine,
        armoredSignature: armored,
        message: payloadOf(token),
        namespace: 'v0@localhost',
      });
      assert.ok(verified.ok, `${kind}: ${verified.stderr}`);
    }
  });
});

describe('mint: the payload', () => {
  test('defaults to exp = now + 1h and no other field', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await mint(['--key', key().path]);
    const after = Math.floor(Date.now() / 1000);
    const payload = JSON.parse(payloadOf(token)) as { exp: number };
    assert.deepEqual(Object.keys(payload), ['exp']);
    assert.ok(payload.exp >= before + 3600 && payload.exp <= after + 3600, `exp ${payload.exp}`);
  });

  test('is compact, in the order exp, nbf, cmds, ctx, with --cmds split, trimmed and repeatable', async () => {
    const token = await mint([
      '--key',
      key().path,
      '--exp',
      '1900000000',
      '--nbf',
      '1800000000',
      '--cmds',
      'whoami, ls',
      '--cmds',
      'ssh-key list',
      '--ctx',
      '{"ticket": 42, "tags": ["a"]}',
    ]);
    assert.equal(
      payloadOf(token),
      '{"exp":1900000000,"nbf":1800000000,"cmds":["whoami","ls","ssh-key list"],"ctx":{"ticket": 42, "tags": ["a"]}}',
    );
  });

  test('--exp never omits exp and warns on stderr, unless -q', async () => {
    const loud = await cli(['mint', '--key', key().path, '--exp', 'never']);
    assert.equal(loud.code, 0);
    assert.equal(payloadOf(loud.stdout.trim()), '{}');
    assert.equal(
      loud.stderr,
      'exectl: warning: the token never expires (--exp never): it works until its key is removed\n',
    );
    const quiet = await cli(['-q', 'mint', '--key', key().path, '--exp', 'never']);
    assert.deepEqual([quiet.code, quiet.stderr], [0, '']);
    assert.match(quiet.stdout, TOKEN_LINE);
  });

  test('--nbf 1h alone: valid from in one hour until in two', async () => {
    const token = await mint(['--key', key().path, '--nbf', '1h']);
    const { exp, nbf } = JSON.parse(payloadOf(token)) as { exp: number; nbf: number };
    assert.equal(exp - nbf, 3600);
    assert.ok(Math.abs(nbf - (Date.now() / 1000 + 3600)) < 60, String(nbf));
  });

  test("inspect's warnings are printed on stderr at mint time", async () => {
    const result = await cli([
      'mint',
      '--key',
      key().path,
      '--cmds',
      'ssh-key',
      '--ctx',
      '{"token":"x"}',
    ]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, TOKEN_LINE);
    assert.equal(
      result.stderr,
      'exectl: warning: cmds lists "ssh-key" without any of its subcommands, and a parent grants none (write e.g. "ssh-key list")\n' +
        'exectl: warning: ctx may hold a secret (ctx.token); ctx is public: anyone with the token can read it\n',
    );
  });

  test('--vm and --namespace choose the signature namespace', async () => {
    const cases: [string[], string][] = [
      [[], 'v0@localhost'],
      [['--vm', 'web'], 'v0@web.localhost'],
      [['--namespace', 'v0@example.com'], 'v0@example.com'],
      [['--namespace', 'v0@example.com', '--vm', 'web'], 'v0@web.example.com'],
    ];
    for (const [flags, namespace] of cases) {
      const token = await mint(['--key', key().path, ...flags]);
      const report = parseJson(await cli(['inspect', '--json', token]));
      assert.equal(report.namespace, namespace, flags.join(' '));
    }
  });

  test('bad flags are one-line usage errors with exit 2', async () => {
    const k = key().path;
    const cases: [string[], string][] = [
      [
        ['--exp', '10x'],
        '--exp "10x" is neither a duration nor a unix time — use e.g. 30s, 15m, 1h, 7d, 2w or 1y, or a unix time such as 1900000000',
      ],
      [
        ['--exp', '1.5h'],
        '--exp "1.5h" is neither a duration nor a unix time — use e.g. 30s, 15m, 1h, 7d, 2w or 1y, or a unix time such as 1900000000',
      ],
      [
        ['--nbf=-1h'],
        '--nbf "-1h" is neither a duration nor a unix time — use e.g. 30s, 15m, 1h, 7d, 2w or 1y, or a unix time such as 1900000000',
      ],
      [
        ['--exp', '0s'],
        '--exp "0s" is neither a duration nor a unix time — use e.g. 30s, 15m, 1h, 7d, 2w or 1y, or a unix time such as 1900000000',
      ],
      [
        ['--exp', '5000000000'],
        'the permissions would be rejected: exp out of range — check --exp, --nbf, --cmds and --ctx against exectl-mint(1)',
      ],
      [
        ['--exp', '1900000000', '--nbf', '1900000001'],
        '--nbf is after --exp: the token would never be valid — choose an --nbf before the --exp',
      ],
      [
        ['--cmds', 'whoami,,ls'],
        '--cmds "whoami,,ls" has an empty entry — list command paths separated by commas, e.g. --cmds "whoami,ssh-key list"',
      ],
      [
        ['--ctx', '{bad'],
        '--ctx is not one valid JSON value — quote it for the shell, e.g. --ctx \'{"ticket":42}\'',
      ],
      [
        ['--ctx', '1,"nbf":946684800'],
        '--ctx is not one valid JSON value — quote it for the shell, e.g. --ctx \'{"ticket":42}\'',
      ],
      [
        ['--ctx', '{"a":1,"a":2}'],
        '--ctx is not acceptable: duplicate key "a" in permissions JSON — check --exp, --nbf, --cmds and --ctx against exectl-mint(1)',
      ],
      [
        ['--ctx', '{"a":\n1}'],
        '--ctx must be on one line: it contains a line break — write the JSON compactly, e.g. --ctx \'{"ticket":42}\'',
      ],
      [
        ['--vm', 'Web'],
        '--vm "Web" is not a valid VM name — a VM name is lowercase letters, digits and "-", starting with a letter',
      ],
      [
        ['--namespace', 'custom', '--vm', 'web'],
        '--vm needs a namespace of the form v0@<domain>, not "custom" — give --namespace v0@<domain>, or set "domain" in the profile',
      ],
      [['--exp'], 'option \'--exp <when>\' argument missing — see "exectl mint --help"'],
      [['--bogus'], 'unknown option \'--bogus\' — see "exectl mint --help"'],
      [
        ['extra'],
        'too many arguments for \'mint\'. Expected 0 arguments but got 1. — see "exectl mint --help"',
      ],
    ];
    for (const [flags, line] of cases) {
      assertOneLineError(await cli(['mint', '--key', k, ...flags]), 2, line);
    }
  });

  test('an exp in the past is minted with a warning', async () => {
    const result = await cli(['mint', '--key', key().path, '--exp', '1000000000']);
    assert.equal(result.code, 0);
    assert.equal(
      result.stderr,
      'exectl: warning: --exp is in the past: the token is already expired\n',
    );
  });
});

describe('mint: keys and passphrases', () => {
  let locked: GeneratedKey;
  before(async () => {
    locked = await generateKey(dir.path, 'ed25519', {
      name: 'id_locked',
      passphrase: 'correct horse',
    });
  });

  test('EXECTL_PASSPHRASE unlocks a protected key', async () => {
    const token = await mint(['--key', locked.path], { EXECTL_PASSPHRASE: 'correct horse' });
    const result = await cli(['inspect', '--verify', locked.pubPath, token]);
    assert.equal(result.code, 0, result.stdout);
  });

  test('a wrong passphrase is one line, exit 2', async () => {
    const result = await cli(['mint', '--key', locked.path], {
      env: { EXECTL_PASSPHRASE: 'wrong' },
    });
    assertOneLineError(
      result,
      2,
      `wrong passphrase for ${locked.path} — check EXECTL_PASSPHRASE or the passphrase typed`,
    );
  });

  test('no passphrase and no terminal names both ways to give one', async () => {
    const result = await cli(['mint', '--key', locked.path]);
    assertOneLineError(
      result,
      2,
      `${locked.path} is protected by a passphrase — set EXECTL_PASSPHRASE, or run exectl on a terminal to be asked for it`,
    );
  });

  test('EXECTL_KEY names the key; without any key the error says how to make one', async () => {
    const token = await mint([], { EXECTL_KEY: key('ecdsa-256').path });
    const report = parseJson(await cli(['inspect', '--json', token]));
    assert.deepEqual(report.signer, {
      type: 'ecdsa-sha2-nistp256',
      fingerprint: await fingerprintOf(key('ecdsa-256')),
    });
    assertOneLineError(
      await cli(['mint']),
      2,
      'no SSH key found — create one with `ssh-keygen -t ed25519`, or pass --key PATH',
    );
  });
});

describe('inspect', () => {
  test('a valid token: readable report, exit 0', async () => {
    const token = await mint(['--key', key().path, '--exp', '1900000000', '--cmds', 'whoami,ls']);
    const result = await cli(['inspect', token]);
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
    const lines = result.stdout.split('\n');
    assert.deepEqual(lines.slice(0, 4), [
      'kind       svc0',
      // Not `yes`: without --verify nothing checked the signature (issue 28).
      'valid      if signed by a registered key (the signature is not checked without --verify)',
      'payload    {"exp":1900000000,"cmds":["whoami","ls"]}',
      'cmds       whoami, ls',
    ]);
    assert.match(lines[4]!, /^exp {8}2030-03-17T17:46:40Z \(expires in \d+y\)$/);
    assert.deepEqual(lines.slice(5), [
      'nbf        none',
      `signer     ssh-ed25519 ${await fingerprintOf(key())}`,
      'namespace  v0@localhost',
      'hash       sha512',
      `size       ${Buffer.byteLength(token)} bytes`,
      'verified   not checked (use --verify FILE)',
      '',
    ]);
  });

  test('--json has the documented shape', async () => {
    const token = await mint([
      '--key',
      key().path,
      '--exp',
      '1900000000',
      '--cmds',
      'whoami,ls',
      '--ctx',
      '{"ticket":42}',
    ]);
    const result = await cli(['inspect', '--json', '--verify', key().pubPath, token]);
    assert.equal(result.code, 0);
    const report = parseJson(result) as { exp: { relative: string } } & Record<string, unknown>;
    assert.match(report.exp.relative, /^expires in \d+y$/);
    assert.deepEqual(report, {
      kind: 'svc0',
      compat: null,
      valid: true,
      reason: null,
      error: null,
      payload: '{"exp":1900000000,"cmds":["whoami","ls"],"ctx":{"ticket":42}}',
      permissions: { exp: 1900000000, nbf: null, cmds: ['whoami', 'ls'], ctx_raw: '{"ticket":42}' },
      effective_cmds: ['whoami', 'ls'],
      cmds_are_defaults: false,
      exp: { unix: 1900000000, utc: '2030-03-17T17:46:40Z', relative: report.exp.relative },
      nbf: null,
      signer: { type: 'ssh-ed25519', fingerprint: await fingerprintOf(key()) },
      namespace: 'v0@localhost',
      vm: null,
      hash: 'sha512',
      size: Buffer.byteLength(token),
      warnings: [],
      signature_verified: true,
    });
  });

  test('valid: yes only once --verify checked the signature', async () => {
    const token = await mint(['--key', key().path, '--exp', '1900000000', '--cmds', 'whoami']);
    const result = await cli(['inspect', '--verify', key().pubPath, token]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\nvalid {6}yes\n/);
    assert.match(result.stdout, /\nverified {3}yes, by a key in /);
  });

  test('a VM token shows the VM it is for and no cmds, defaults or not', async () => {
    for (const [cmds, namespace, env] of [
      [[], 'v0@web.localhost', {}],
      [['--cmds', 'ssh-key'], 'v0@web.localhost', {}],
      [[], 'v0@web.example.com', { EXECTL_NAMESPACE: 'v0@example.com' }],
    ] as const) {
      const token = await mint(['--key', key().path, '--vm', 'web', ...cmds], env);
      const result = await cli(['inspect', token], { env });
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stdout.split('\n');
      assert.equal(lines.filter((l) => l.startsWith('cmds ')).length, 0, result.stdout);
      assert.ok(lines.includes('vm         web (a VM token for its proxy: cmds do not apply)'));
      // A parent without subcommands means nothing where cmds do not apply.
      assert.doesNotMatch(result.stdout, /warning: cmds/);
      const report = parseJson(await cli(['inspect', '--json', token], { env }));
      assert.deepEqual(
        [report.namespace, report.vm, report.effective_cmds, report.cmds_are_defaults],
        [namespace, 'web', null, null],
      );
    }
  });

  test('defaults are shown as defaults when the token has no cmds', async () => {
    const token = await mint(['--key', key().path]);
    const result = await cli(['inspect', token]);
    assert.match(
      result.stdout,
      /\ncmds {7}help, ls, new, whoami, ssh-key list, share show, svc0-to-svc1, team, team members \(defaults: the token has no cmds\)\n/,
    );
    const report = parseJson(await cli(['inspect', '--json', token]));
    assert.equal(report.cmds_are_defaults, true);
  });

  test('expired and not yet valid tokens: report, exit 1', async () => {
    const expired = await mint(['--key', key().path, '--exp', '1000000000']);
    const result = await cli(['inspect', expired]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /\nvalid {6}no \(invalid token: expired\)\n/);
    assert.match(result.stdout, /\nexp {8}2001-09-09T01:46:40Z \(expired \d+y ago\)\n/);
    const early = await mint(['--key', key().path, '--nbf', '1d', '--exp', '2d']);
    const report = await cli(['inspect', '--json', early]);
    assert.equal(report.code, 1);
    assert.deepEqual(
      [parseJson(report).valid, parseJson(report).reason, parseJson(report).error],
      [false, 'not_yet_valid', 'invalid token: not yet valid'],
    );
  });

  test('malformed tokens: one line (or the JSON report), exit 2', async () => {
    const token = await mint(['--key', key().path]);
    const cases: [string, string, string][] = [
      ['hello', 'malformed', 'invalid token: malformed'],
      ['svc0.e30', 'malformed', 'invalid token: malformed'],
      [`${token}=`, 'bad_base64url', 'invalid token: signature is not valid base64url'],
      [
        `svc0.${Buffer.from('{"exp":1}').toString('base64url')}.${token.split('.')[2]}`,
        'bad_permissions',
        'invalid token: exp out of range',
      ],
      ['svc0.e30.U1NIU0lH', 'bad_signature_blob', 'invalid token: malformed signature'],
      ['svc1.tooshort', 'malformed', 'invalid token: malformed'],
      [`svc0.${'A'.repeat(9000)}.AAAA`, 'too_large', 'invalid token: exceeds 8192 bytes'],
    ];
    for (const [bad, reason, message] of cases) {
      assertOneLineError(
        await cli(['inspect', bad]),
        2,
        `${message} — check that the whole token was copied`,
      );
      const json = await cli(['inspect', '--json', bad]);
      assert.equal(json.code, 2);
      const report = parseJson(json);
      assert.deepEqual(
        [report.valid, report.reason, report.error, report.payload],
        [false, reason, message, null],
      );
    }
  });

  test('a svc1 token is opaque: exit 0 when well-formed', async () => {
    const svc1 = 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYA';
    const result = await cli(['inspect', svc1]);
    assert.deepEqual(result, {
      code: 0,
      stdout:
        'kind       svc1\nvalid      unknown: a svc1 token is opaque, only the server that issued it can check it\nsize       31 bytes\n',
      stderr: '',
    });
    assert.deepEqual(parseJson(await cli(['inspect', '--json', svc1])).valid, null);
  });

  test('reads the token from stdin with "-" or no argument', async () => {
    const token = await mint(['--key', key().path]);
    for (const args of [['inspect', '-'], ['inspect']]) {
      const result = await cli(args, { input: `\n  ${token}\n` });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^kind {7}svc0\nvalid {6}if signed by a registered key /);
    }
    assertOneLineError(
      await cli(['inspect', '-'], { input: '' }),
      2,
      'no token on stdin — pipe in a token, or pass it as an argument',
    );
  });

  test('warnings: no exp, a parent without subcommands, a secret-looking ctx', async () => {
    const token = await mint([
      '--key',
      key().path,
      '--exp',
      'never',
      '--cmds',
      'ssh-key,share,share show,integrations,team',
      '--ctx',
      '{"db":{"password":"hunter2"},"note":"hello"}',
    ]);
    const report = parseJson(await cli(['inspect', '--json', token]));
    assert.deepEqual(report.warnings, [
      {
        code: 'no_exp',
        message: 'no exp: the token never expires; it works until its key is removed',
      },
      {
        code: 'parent_without_subcommands',
        message:
          'cmds lists "ssh-key" without any of its subcommands, and a parent grants none (write e.g. "ssh-key list")',
      },
      {
        code: 'parent_without_subcommands',
        message:
          'cmds lists "integrations" without any of its subcommands, and a parent grants none (write e.g. "integrations list")',
      },
      {
        code: 'secret_in_ctx',
        message:
          'ctx may hold a secret (ctx.db.password); ctx is public: anyone with the token can read it',
      },
    ]);
    const text = await cli(['inspect', token]);
    assert.equal(text.code, 0);
    assert.ok(
      text.stdout.endsWith(
        'warning: ctx may hold a secret (ctx.db.password); ctx is public: anyone with the token can read it\n',
      ),
    );
    const warnings = report.warnings as { message: string }[];
    assert.ok(
      warnings.every((w) => !w.message.includes('hunter2')),
      'a warning never echoes the secret',
    );
  });

  test('a token made with the SPEC shell recipe is read and verified', async () => {
    const token = await mintWithShellRecipe(
      key(),
      '{"exp":1900000000,"cmds":["whoami"]}',
      'v0@localhost',
    );
    const result = await cli(['inspect', '--json', '--verify', key().pubPath, token]);
    assert.equal(result.code, 0);
    assert.deepEqual([parseJson(result).valid, parseJson(result).signature_verified], [true, true]);
  });
});
