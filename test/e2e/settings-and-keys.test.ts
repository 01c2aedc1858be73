// Where mint's key and namespace come from, through the built CLI: profiles in
// $XDG_CONFIG_HOME/exectl/config.json, env, flags, a real ssh-agent, and ~/.ssh defaults.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import {
  generateKey,
  run,
  startAgent,
  type GeneratedKey,
  type TestAgent,
} from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';

let dir: TempDir;
const keys = {} as Record<'work' | 'other' | 'flag' | 'env', GeneratedKey>;

before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-settings');
  await mkdir(dir.join('keys'));
  for (const name of ['work', 'other', 'flag', 'env'] as const) {
    keys[name] = await generateKey(dir.join('keys'), 'ed25519', { name });
  }
});
after(() => dir.remove());

async function fingerprint(key: GeneratedKey): Promise<string> {
  return (await run('ssh-keygen', ['-lf', key.pubPath])).stdout.split(' ')[1]!;
}

/** Mints in `home` with `args`/`env` and returns the signer fingerprint and namespace. */
async function mintedBy(
  home: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ fingerprint: string; namespace: string }> {
  const minted = await exectl(['mint', ...args], { home, env });
  assert.equal(minted.code, 0, minted.stderr);
  const inspected = await exectl(['inspect', '--json', minted.stdout.trim()], { home });
  const report = JSON.parse(inspected.stdout) as {
    signer: { fingerprint: string };
    namespace: string;
  };
  return { fingerprint: report.signer.fingerprint, namespace: report.namespace };
}

describe('profiles: flags > env > profile > defaults', () => {
  let home: string;
  let configPath: string;

  before(async () => {
    home = dir.join('profiles-home');
    await mkdir(dir.join('profiles-home', '.config', 'exectl'), { recursive: true });
    configPath = dir.join('profiles-home', '.config', 'exectl', 'config.json');
    await writeFile(
      configPath,
      JSON.stringify({
        profiles: {
          work: { key: keys.work.path, domain: 'example.com' },
          other: { key: keys.other.path, namespace: 'v0@other.test' },
        },
        defaultProfile: 'work',
      }),
    );
  });

  test('table', async () => {
    const cases: [string, string[], Record<string, string>, GeneratedKey, string][] = [
      ['default profile', [], {}, keys.work, 'v0@example.com'],
      ['default profile, VM token', ['--vm', 'web'], {}, keys.work, 'v0@web.example.com'],
      ['--profile', ['--profile', 'other'], {}, keys.other, 'v0@other.test'],
      ['EXECTL_PROFILE', [], { EXECTL_PROFILE: 'other' }, keys.other, 'v0@other.test'],
      [
        '--profile beats EXECTL_PROFILE',
        ['--profile', 'work'],
        { EXECTL_PROFILE: 'other' },
        keys.work,
        'v0@example.com',
      ],
      [
        'EXECTL_KEY beats the profile',
        [],
        { EXECTL_KEY: keys.env.path },
        keys.env,
        'v0@example.com',
      ],
      [
        '--key beats EXECTL_KEY',
        ['--key', keys.flag.path],
        { EXECTL_KEY: keys.env.path },
        keys.flag,
        'v0@example.com',
      ],
      [
        'EXECTL_NAMESPACE beats the profile',
        [],
        { EXECTL_NAMESPACE: 'v0@env.test' },
        keys.work,
        'v0@env.test',
      ],
      [
        '--namespace beats EXECTL_NAMESPACE',
        ['--namespace', 'v0@flag.test'],
        { EXECTL_NAMESPACE: 'v0@env.test' },
        keys.work,
        'v0@flag.test',
      ],
    ];
    for (const [name, args, env, key, namespace] of cases) {
      assert.deepEqual(
        await mintedBy(home, args, env),
        { fingerprint: await fingerprint(key), namespace },
        name,
      );
    }
  });

  test('an unknown profile is a one-line usage error', async () => {
    assertOneLineError(
      await exectl(['--profile', 'nope', 'mint'], { home }),
      2,
      `profile "nope" not found — see exectl profile list, or add it with exectl profile add nope --url URL (to ${configPath})`,
    );
  });

  test('a broken config file is named in a one-line error; inspect does not read it', async () => {
    const brokenHome = dir.join('broken-home');
    const path = dir.join('broken-home', '.config', 'exectl', 'config.json');
    await mkdir(dir.join('broken-home', '.config', 'exectl'), { recursive: true });
    const hint = 'fix it (its format is in exectl(1), PROFILES) or move it away';
    const cases: [string, string][] = [
      ['{"profiles":', `config file ${path} is not valid JSON — ${hint}`],
      ['{"profile":{}}', `config file ${path} has an unknown field "profile" — ${hint}`],
      [
        '{"profiles":{"a":{"keys":"x"}}}',
        `config file ${path} profile "a" has an unknown field "keys" — ${hint}`,
      ],
      [
        '{"profiles":{"a":{"url":7}}}',
        `config file ${path} profile "a": "url" must be a non-empty string — ${hint}`,
      ],
    ];
    for (const [text, line] of cases) {
      await writeFile(path, text);
      assertOneLineError(
        await exectl(['mint', '--key', keys.flag.path], { home: brokenHome }),
        2,
        line,
      );
    }
    const inspected = await exectl(['inspect', 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYA'], {
      home: brokenHome,
    });
    assert.equal(inspected.code, 0);
  });
});

describe('key sources (SPEC §1.4)', () => {
  let agent: TestAgent;
  let locked: GeneratedKey;
  let agentKey: GeneratedKey;

  before(async () => {
    agent = await startAgent(dir.path);
    agentKey = await generateKey(dir.join('keys'), 'ecdsa-384', { name: 'in-agent' });
    locked = await generateKey(dir.join('keys'), 'ed25519', {
      name: 'locked',
      passphrase: 'sesame',
    });
    await agent.add(agentKey);
    await agent.add(locked);
  });
  after(() => agent.stop());

  test('without --key, the first agent key signs', async () => {
    const home = dir.join('agent-home');
    await mkdir(home, { recursive: true });
    const { fingerprint: used } = await mintedBy(home, [], { SSH_AUTH_SOCK: agent.socketPath });
    assert.equal(used, await fingerprint(agentKey));
  });

  test('--key of a passphrase key the agent holds needs no passphrase', async () => {
    const { fingerprint: used } = await mintedBy(dir.path, ['--key', locked.path], {
      SSH_AUTH_SOCK: agent.socketPath,
    });
    assert.equal(used, await fingerprint(locked));
  });

  test('without agent and --key: ~/.ssh/id_ed25519, id_ecdsa, id_rsa in that order', async () => {
    const home = dir.join('ssh-home');
    await mkdir(dir.join('ssh-home', '.ssh'), { recursive: true });
    const ecdsa = await generateKey(dir.join('ssh-home', '.ssh'), 'ecdsa-256', {
      name: 'id_ecdsa',
    });
    assert.equal((await mintedBy(home, [])).fingerprint, await fingerprint(ecdsa));
    const ed25519 = await generateKey(dir.join('ssh-home', '.ssh'), 'ed25519', {
      name: 'id_ed25519',
    });
    assert.equal((await mintedBy(home, [])).fingerprint, await fingerprint(ed25519));
    const stale = { SSH_AUTH_SOCK: dir.join('no-agent.sock') };
    assert.equal((await mintedBy(home, [], stale)).fingerprint, await fingerprint(ed25519));
  });
});
