// `exectl completion bash|zsh|fish` from the built CLI, driven in the real shells against a
// real server (SPEC §8): each script completes `exectl ssh <partial>` to a VM the server has
// and `exectl run ssh-k` to `ssh-key` (from the server's `help all`), and a server that is
// down makes completion say nothing, at once. bash, zsh and fish are required (.ci/run
// installs them): a missing shell fails here rather than skipping.
import assert from 'node:assert/strict';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run } from '../helpers/keys.js';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, assertOneLineError, exectl, REPO } from './harness.js';

let svc: TestService;
let home: string;
/** A folder holding an `exectl` command (the built CLI), put first on PATH. */
let binDir: string;
const scripts: Record<string, string> = {};

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = await homeWithOwnerKey(svc);
  const created = await exectl(['--url', svc.url, 'run', 'new', '--name', 'webapp'], { home });
  assert.equal(created.code, 0, created.stderr);
  binDir = svc.dir.join('bin');
  await mkdir(binDir);
  await writeFile(
    join(binDir, 'exectl'),
    `#!/bin/sh\nexec '${process.execPath}' '${join(REPO, 'bin', 'exectl.cjs')}' "$@"\n`,
  );
  await chmod(join(binDir, 'exectl'), 0o755);
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await exectl(['completion', shell], { home });
    assert.deepEqual([result.code, result.stderr], [0, ''], shell);
    scripts[shell] = result.stdout;
    await writeFile(svc.dir.join(`completion.${shell}`), result.stdout);
  }
});
after(() => svc.stop());

/** The environment of a user's shell: the built exectl on PATH, the server in EXECTL_URL. */
function shellEnv(url = svc.url): Record<string, string> {
  return {
    PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    EXECTL_URL: url,
  };
}

/** Quoted for sh, bash, zsh and fish alike (none of the words holds a quote). */
const q = (word: string): string => `'${word}'`;

/**
 * The words bash offers after `words` (the last being typed), as bash itself would: the
 * script sourced, COMP_WORDS and COMP_CWORD set, the completion function called.
 */
async function bashOffers(words: readonly string[], url?: string): Promise<string[]> {
  const driver = [
    `source ${q(svc.dir.join('completion.bash'))}`,
    `COMP_WORDS=(exectl ${words.map(q).join(' ')})`,
    `COMP_CWORD=${words.length}`,
    'COMPREPLY=()',
    '_exectl_complete',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const result = await run('bash', ['--norc', '-c', driver], { env: shellEnv(url) });
  assert.deepEqual([result.code, result.stderr], [0, ''], words.join(' '));
  return result.stdout.split('\n').filter((line) => line !== '');
}

/** What fish offers for the command line `line` (`complete -C`), words only. */
async function fishOffers(line: string): Promise<string[]> {
  const driver = `source ${q(svc.dir.join('completion.fish'))}; complete -C ${q(line)}`;
  const result = await run('fish', ['--no-config', '-c', driver], { env: shellEnv() });
  assert.deepEqual([result.code, result.stderr], [0, ''], line);
  return result.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t')[0]!);
}

/**
 * What zsh's completion function hands to `_describe` after `words`: zsh runs the script with
 * `words` and CURRENT set as the completion system sets them; `_describe`, `_files` and
 * `compdef` (parts of compsys, which needs a terminal) print what they were given instead.
 */
async function zshOffers(words: readonly string[]): Promise<string[]> {
  const driver = [
    'compdef() { : }',
    '_files() { print -r -- FILES }',
    '_describe() { print -rl -- "${(@P)4}" }',
    `source ${q(svc.dir.join('completion.zsh'))}`,
    `words=(exectl ${words.map(q).join(' ')})`,
    `CURRENT=${words.length + 1}`,
    '_exectl',
  ].join('\n');
  const result = await run('zsh', ['-f', '-c', driver], { env: shellEnv() });
  assert.deepEqual([result.code, result.stderr], [0, ''], words.join(' '));
  return result.stdout.split('\n').filter((l) => l !== '');
}

describe('bash', () => {
  test('bash -n: the script parses', async () => {
    const result = await run('bash', ['-n', svc.dir.join('completion.bash')]);
    assert.deepEqual([result.code, result.stderr], [0, '']);
  });

  test('exectl ssh <partial> completes to the VM the server has', async () => {
    assert.deepEqual(await bashOffers(['ssh', 'web']), ['webapp']);
    assert.deepEqual(await bashOffers(['ssh', '']), ['webapp']);
  });

  test("exectl run ssh-k completes to ssh-key, from the server's help all", async () => {
    assert.deepEqual(await bashOffers(['run', 'ssh-k']), ['ssh-key']);
    assert.deepEqual((await bashOffers(['run', 'ssh-key', 'l'])).sort(), ['list']);
    assert.deepEqual(await bashOffers(['run', 'stat', 'we']), ['webapp']);
  });

  test("exectl's own commands (help among them), flags and fixed values", async () => {
    assert.deepEqual(await bashOffers(['he']), ['help']);
    assert.deepEqual(await bashOffers(['serve', '--runtime', '']), ['auto', 'bwrap', 'process']);
    assert.deepEqual(await bashOffers(['mint', '--s']), ['--svc1']);
    assert.deepEqual(await bashOffers(['completion', 'z']), ['zsh']);
  });

  test('file names only where a path goes', async () => {
    await writeFile(join(home, 'id_completion_test'), '');
    const driverDir = home; // bash completes relative to its working folder: run it there
    const result = await run(
      'bash',
      [
        '--norc',
        '-c',
        `cd ${q(driverDir)} && source ${q(svc.dir.join('completion.bash'))} && COMP_WORDS=(exectl mint --key id_compl) COMP_CWORD=3 && _exectl_complete && printf "%s\\n" "\${COMPREPLY[@]}"`,
      ],
      { env: shellEnv() },
    );
    assert.deepEqual([result.code, result.stderr, result.stdout], [0, '', 'id_completion_test\n']);
  });

  test('the answers are cached under XDG_CACHE_HOME, with no token in them', async () => {
    await bashOffers(['ssh', '']);
    const folder = join(home, '.cache', 'exectl');
    const files = (await readdir(folder)).filter((f) => f.startsWith('completion-'));
    assert.equal(files.length, 1);
    const text = await readFile(join(folder, files[0]!), 'utf8');
    assert.ok(text.includes('"webapp"'));
    assert.ok(!/svc[01]\./.test(text), 'no token');
  });
});

describe('a server that is down', () => {
  // The bound is on waiting for the server (a TCP timeout would be minutes), not a speed:
  // node's own start is in it, slow on a loaded machine.
  test('completion prints nothing, exits 0, without waiting', async () => {
    const down = 'http://127.0.0.1:9'; // discard port: nothing listens
    const started = Date.now();
    const direct = await exectl(['__complete', 'ssh', ''], { home, env: { EXECTL_URL: down } });
    const elapsed = Date.now() - started;
    assert.deepEqual([direct.code, direct.stderr, direct.stdout], [0, '', 'words\n']);
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
    const run = await exectl(['__complete', 'run', 'ssh-k'], { home, env: { EXECTL_URL: down } });
    assert.deepEqual([run.code, run.stderr, run.stdout], [0, '', 'words\n']);
    assert.deepEqual(await bashOffers(['ssh', 'web'], down), []);
  });

  test('no key to sign with: nothing either', async () => {
    const empty = svc.dir.join('empty-home');
    await mkdir(empty, { recursive: true });
    const result = await exectl(['__complete', 'ssh', ''], {
      home: empty,
      env: { EXECTL_URL: svc.url },
    });
    assert.deepEqual([result.code, result.stderr, result.stdout], [0, '', 'words\n']);
  });
});

describe('fish', () => {
  test('complete -C: a VM after ssh, ssh-key after run ssh-k', async () => {
    assert.deepEqual(await fishOffers('exectl ssh web'), ['webapp']);
    assert.deepEqual(await fishOffers('exectl run ssh-k'), ['ssh-key']);
    assert.deepEqual(await fishOffers('exectl serve --runtime b'), ['bwrap']);
  });
});

describe('zsh', () => {
  test('zsh -n: the script parses', async () => {
    const result = await run('zsh', ['-n', svc.dir.join('completion.zsh')]);
    assert.deepEqual([result.code, result.stderr], [0, '']);
  });

  test('a VM after ssh, ssh-key after run ssh-k, with their descriptions', async () => {
    assert.deepEqual(await zshOffers(['ssh', 'web']), ['webapp:running']);
    const run = await zshOffers(['run', 'ssh-k']);
    assert.equal(run.length, 1);
    assert.match(run[0]!, /^ssh-key:./);
    assert.deepEqual(await zshOffers(['mint', '--key', '']), ['FILES']);
  });
});

test('an unknown shell is a usage error', async () => {
  assertOneLineError(
    await exectl(['completion', 'tcsh'], { home }),
    2,
    `command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish. — see "exectl completion --help"`,
  );
});
