// `exectl profile add|list|use|remove` through the built CLI (SPEC §8 profiles, issue 28): the
// file it writes (mode 0600, exact JSON, atomically, other profiles untouched), what it refuses
// with the client's own rules, and a default profile that sends `exectl run` to its server.
import assert from 'node:assert/strict';
import { lstat, mkdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl, withUmask, type CliResult } from './harness.js';

let dir: TempDir;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-profile');
});
after(() => dir.remove());

let homes = 0;
/** A fresh home folder with no config file. */
async function freshHome(): Promise<{ home: string; config: string }> {
  const home = dir.join(`home${++homes}`);
  await mkdir(home);
  return { home, config: join(home, '.config', 'exectl', 'config.json') };
}

function assertOk(result: CliResult, stdout: string): void {
  assert.deepEqual(
    { code: result.code, stderr: result.stderr, stdout: result.stdout },
    { code: 0, stderr: '', stdout },
  );
}

/** The file's bytes and mode, to show that a refused change left it as it was. */
async function snapshot(path: string): Promise<{ text: string; mode: number }> {
  return { text: await readFile(path, 'utf8'), mode: (await stat(path)).mode & 0o777 };
}

describe('profile add', () => {
  test('writes the file with mode 0600 and exactly this JSON, whatever the umask', async () => {
    const { home, config } = await freshHome();
    await writeFile(join(home, 'id_work'), 'not read by add\n');
    const added = await exectl(
      [
        ...['profile', 'add', 'work', '--url', 'https://exec.example.com'],
        ...['--key', 'id_work', '--namespace', 'v0@example.com'],
      ],
      { home, wrap: withUmask('000') },
    );
    assertOk(
      added,
      `added profile "work" to ${config}\n` +
        'use it with --profile work, or by default: exectl profile use work\n',
    );
    assert.deepEqual(await snapshot(config), {
      text:
        '{\n' +
        '  "profiles": {\n' +
        '    "work": {\n' +
        '      "url": "https://exec.example.com",\n' +
        // A relative key is stored absolute: the profile works from any folder.
        `      "key": "${join(home, 'id_work')}",\n` +
        '      "namespace": "v0@example.com"\n' +
        '    }\n' +
        '  }\n' +
        '}\n',
      mode: 0o600,
    });
    assert.equal((await stat(join(home, '.config', 'exectl'))).mode & 0o777, 0o700);
  });

  test('refusals: one line each, exit 2, the file unchanged', async () => {
    const { home, config } = await freshHome();
    assertOk(
      await exectl(['-q', 'profile', 'add', 'keep', '--url', 'http://127.0.0.1:8070'], { home }),
      `added profile "keep" to ${config}\n`,
    );
    const before = await snapshot(config);
    const cases: [string[], string][] = [
      [
        ['profile', 'add', 'bad', '--url', 'ftp://exec.example.com'],
        '--url "ftp://exec.example.com" is not an http:// or https:// URL — e.g. http://127.0.0.1:7070',
      ],
      [
        ['profile', 'add', 'bad', '--url', 'http://127.0.0.1:7070/exec'],
        '--url "http://127.0.0.1:7070/exec" ends in /exec, which exectl adds itself — give the service\'s address: http://127.0.0.1:7070',
      ],
      [
        ['profile', 'add', 'bad'],
        'profile add needs --url — e.g. exectl profile add bad --url http://127.0.0.1:7070',
      ],
      [
        ['profile', 'add', 'bad name', '--url', 'http://h'],
        'profile name "bad name" is not allowed — use up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit',
      ],
      [
        ['profile', 'add', 'bad', '--url', 'http://h', '--key', 'missing'],
        '--key missing: no such file — give the path of a private key, e.g. ~/.ssh/id_ed25519',
      ],
      [
        ['profile', 'add', 'bad', '--url', 'http://h', '--namespace', ''],
        '--namespace needs a value — e.g. v0@example.com',
      ],
      [
        ['profile', 'add', 'keep', '--url', 'http://h'],
        `profile "keep" already exists in ${config} — remove it first (exectl profile remove keep), or choose another name`,
      ],
      [
        ['profile', 'use', 'nope'],
        `profile "nope" not found in ${config} — see exectl profile list, or add it with exectl profile add nope --url URL`,
      ],
      [
        ['profile', 'remove', 'nope'],
        `profile "nope" not found in ${config} — see exectl profile list, or add it with exectl profile add nope --url URL`,
      ],
      [
        ['profile', 'bogus'],
        'exectl profile has no subcommand "bogus": one of add, list, use, remove — see "exectl profile --help"',
      ],
    ];
    for (const [args, line] of cases) {
      assertOneLineError(await exectl(args, { home }), 2, line);
      assert.deepEqual(await snapshot(config), before, args.join(' '));
    }
  });

  test('a broken config file is named and left as it is', async () => {
    const { home, config } = await freshHome();
    await mkdir(join(home, '.config', 'exectl'), { recursive: true });
    await writeFile(config, '{"profiles":', { mode: 0o644 });
    assertOneLineError(
      await exectl(['profile', 'add', 'a', '--url', 'http://h'], { home }),
      2,
      `config file ${config} is not valid JSON — fix it (its format is in exectl(1), PROFILES) or move it away`,
    );
    assert.deepEqual(await snapshot(config), { text: '{"profiles":', mode: 0o644 });
  });
});

describe('a file written by hand round-trips', () => {
  const handWritten = {
    profiles: {
      prod: { url: 'https://exec.example.com', domain: 'example.com', token: 'svc1.secret' },
      'odd name': { key: '~/.ssh/id_odd' },
    },
    defaultProfile: 'prod',
  };

  test('add, use and remove keep every other profile and field as they were', async () => {
    const { home, config } = await freshHome();
    await mkdir(join(home, '.config', 'exectl'), { recursive: true });
    await writeFile(config, JSON.stringify(handWritten));

    await exectl(['profile', 'add', 'local', '--url', 'http://127.0.0.1:8070'], { home });
    const added = JSON.parse(await readFile(config, 'utf8')) as unknown;
    assert.deepEqual(added, {
      profiles: { ...handWritten.profiles, local: { url: 'http://127.0.0.1:8070' } },
      defaultProfile: 'prod',
    });
    assert.deepEqual(Object.keys((added as typeof handWritten).profiles), [
      'prod',
      'odd name',
      'local',
    ]);

    assertOk(
      await exectl(['profile', 'use', 'local'], { home }),
      'default profile: "local" (http://127.0.0.1:8070)\n',
    );
    assertOk(
      await exectl(['profile', 'remove', 'local'], { home }),
      `removed profile "local" from ${config}; no profile is the default now\n`,
    );
    // The default was removed with its profile: a default naming nothing would break every command.
    assert.deepEqual(JSON.parse(await readFile(config, 'utf8')), {
      profiles: handWritten.profiles,
    });
    assert.equal((await stat(config)).mode & 0o777, 0o600);
  });

  test('a config file that is a symbolic link stays one; its target is rewritten', async () => {
    const { home, config } = await freshHome();
    await mkdir(join(home, 'dotfiles'));
    await mkdir(join(home, '.config', 'exectl'), { recursive: true });
    await writeFile(join(home, 'dotfiles', 'exectl.json'), '{}');
    await symlink(join(home, 'dotfiles', 'exectl.json'), config);
    await exectl(['profile', 'add', 'a', '--url', 'http://h'], { home });
    assert.ok((await lstat(config)).isSymbolicLink());
    assert.equal(await readlink(config), join(home, 'dotfiles', 'exectl.json'));
    assert.deepEqual(JSON.parse(await readFile(config, 'utf8')), {
      profiles: { a: { url: 'http://h' } },
    });
  });
});

describe('profile list and use against a real server', () => {
  let svc: TestService;
  let home: string;
  before(async () => {
    svc = await startTestService();
    home = await homeWithOwnerKey(svc);
  });
  after(() => svc.stop());

  test('list marks the profile in use; use sends `run whoami` there without --url', async () => {
    const env = { EXECTL_URL: '' };
    assertOk(
      await exectl(['profile', 'list'], { home }),
      'no profiles: add one with exectl profile add NAME --url URL\n',
    );
    await exectl(['profile', 'add', 'other', '--url', 'https://u:secret@exec.example.com'], {
      home,
    });
    await exectl(['profile', 'add', 'here', '--url', svc.url], { home });
    // Columns two spaces apart, as wide as their widest cell; the URL shown without its password.
    const width = Math.max('https://exec.example.com'.length, svc.url.length);
    const table = (mark: { other: string; here: string }) =>
      `   NAME   ${'URL'.padEnd(width)}  KEY  NAMESPACE\n` +
      `${mark.other}  other  ${'https://exec.example.com'.padEnd(width)}  -    -\n` +
      `${mark.here}  here   ${svc.url.padEnd(width)}  -    -\n`;
    assertOk(await exectl(['profile', 'list'], { home }), table({ other: ' ', here: ' ' }));

    assertOk(
      await exectl(['profile', 'use', 'here'], { home }),
      `default profile: "here" (${svc.url})\n`,
    );
    assertOk(await exectl(['profile', 'list'], { home }), table({ other: ' ', here: '*' }));
    assertOk(
      await exectl(['profile', 'list'], { home, env: { EXECTL_PROFILE: 'other' } }),
      table({ other: '*', here: ' ' }),
    );

    const whoami = await exectl(['run', 'whoami'], { home, env });
    assert.deepEqual([whoami.code, whoami.stderr], [0, ''], whoami.stderr);
    assert.equal((JSON.parse(whoami.stdout) as { email: string }).email, 'owner@example.com');
  });

  test('use warns when --profile or EXECTL_PROFILE still comes first', async () => {
    const used = await exectl(['profile', 'use', 'here'], {
      home,
      env: { EXECTL_PROFILE: 'other' },
    });
    assert.deepEqual(
      { code: used.code, stdout: used.stdout, stderr: used.stderr },
      {
        code: 0,
        stdout: `default profile: "here" (${svc.url})\n`,
        stderr: 'exectl: warning: EXECTL_PROFILE names profile "other", which still comes first\n',
      },
    );
  });

  test('completion offers the profile names to use and remove', async () => {
    for (const sub of ['use', 'remove']) {
      const offered = await exectl(['__complete', 'profile', sub, ''], { home });
      assertOk(offered, 'words\nother\t\nhere\t\n');
    }
  });
});
