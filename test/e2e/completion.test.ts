// `exectl completion bash|zsh|fish` from the built CLI: the scripts name every command that
// `exectl --help` lists; the bash script parses and really completes in bash; the zsh and fish
// scripts are checked with their own shells when installed, and by structure always.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { run } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';

let dir: TempDir;
const scripts: Record<string, string> = {};
/** The subcommands `exectl --help` lists (commander's own `help` aside). */
let commands: string[];

before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-completion');
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await exectl(['completion', shell], { home: dir.path });
    assert.deepEqual([result.code, result.stderr], [0, ''], shell);
    scripts[shell] = result.stdout;
  }
  const help = await exectl(['--help'], { home: dir.path });
  const section = help.stdout.split('Commands:\n')[1] ?? '';
  commands = [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!);
  commands = commands.filter((c) => c !== 'help');
});
after(() => dir.remove());

/** Is `program` installed? (Asked, not assumed: the check then says which shell was used.) */
async function installed(program: string): Promise<boolean> {
  return (await run('sh', ['-c', `command -v ${program}`])).code === 0;
}

test('--help lists the commands the scripts must know', () => {
  for (const name of ['mint', 'inspect', 'run', 'ssh', 'reflect', 'completion']) {
    assert.ok(commands.includes(name), name);
  }
});

describe('bash', () => {
  /** Completes the words typed so far (the last one is being typed) with the real script. */
  async function complete(words: readonly string[]): Promise<string[]> {
    const scriptPath = dir.join('exectl.bash');
    await writeFile(scriptPath, scripts.bash!);
    const quoted = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ');
    const driver = [
      `source '${scriptPath}'`,
      `COMP_WORDS=(${quoted})`,
      `COMP_CWORD=${words.length - 1}`,
      'COMPREPLY=()',
      '_exectl_complete',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const result = await run('bash', ['-c', `cd '${dir.path}' && ${driver}`]);
    assert.deepEqual([result.code, result.stderr], [0, ''], words.join(' '));
    return result.stdout.split('\n').filter((line) => line !== '');
  }

  test('bash -n: the script parses', async () => {
    await writeFile(dir.join('syntax.bash'), scripts.bash!);
    const result = await run('bash', ['-n', dir.join('syntax.bash')]);
    assert.deepEqual([result.code, result.stderr], [0, '']);
  });

  test('every command of --help, and nothing else, at the top level', async () => {
    assert.deepEqual((await complete(['exectl', ''])).sort(), [...commands].sort());
  });

  test('table: what bash offers after the words typed so far', async () => {
    const cases: [string[], string[]][] = [
      [
        ['exectl', 'r'],
        ['reflect', 'run'],
      ],
      [
        ['exectl', 'run', '--'],
        [
          '--token',
          '--key',
          '--json',
          '--raw',
          '--help',
          '--version',
          '--url',
          '--profile',
          '--no-color',
          '--quiet',
        ],
      ],
      [['exectl', '--url', 'http://x', 'ssh', '--t'], ['--token']],
      [
        ['exectl', '-q', 'completion', ''],
        ['bash', 'zsh', 'fish'],
      ],
      [['exectl', 'completion', 'z'], ['zsh']],
      [['exectl', 'mint', '--s'], ['--svc1']],
      [
        ['exectl', 'serve', 'accounts', ''],
        ['add', 'list', 'remove'],
      ],
      [['exectl', 'run', 'whoami', ''], []],
      [['exectl', 'mint', '--exp', ''], []],
    ];
    for (const [words, offered] of cases) {
      assert.deepEqual(await complete(words), offered, words.join(' '));
    }
  });

  test('file names after a flag that takes a path', async () => {
    await writeFile(dir.join('id_completion_test'), '');
    assert.deepEqual(await complete(['exectl', 'mint', '--key', 'id_compl']), [
      'id_completion_test',
    ]);
  });
});

describe('zsh', () => {
  test('its own shell parses it when installed; its shape always', async (t) => {
    const script = scripts.zsh!;
    await writeFile(dir.join('_exectl'), script);
    if (await installed('zsh')) {
      const result = await run('zsh', ['-n', dir.join('_exectl')]);
      assert.deepEqual([result.code, result.stderr], [0, '']);
    } else {
      t.diagnostic('zsh is not installed: checked with bash -n and by structure only');
    }
    // zsh's grammar for functions, case (with parenthesised patterns), if and quotes is the
    // POSIX one bash also reads, so bash -n catches an unbalanced quote or block.
    const bashParse = await run('bash', ['-n', dir.join('_exectl')]);
    assert.deepEqual([bashParse.code, bashParse.stderr], [0, '']);
    assert.ok(script.startsWith('#compdef exectl\n'));
    assert.ok(script.includes('\n  compdef _exectl exectl\n'));
    for (const name of commands) {
      assert.match(script, new RegExp(`'${name}:[^']+'`), `${name} with its description`);
    }
    assert.ok(
      script.includes("'--svc1:exchange the token through the server (--url) for a short svc1'"),
    );
    assert.ok(script.includes("'bash:choice' 'zsh:choice' 'fish:choice'"));
  });
});

describe('fish', () => {
  test('its own shell parses it when installed; every line well-formed always', async (t) => {
    const script = scripts.fish!;
    await writeFile(dir.join('exectl.fish'), script);
    if (await installed('fish')) {
      const result = await run('fish', ['--no-execute', dir.join('exectl.fish')]);
      assert.deepEqual([result.code, result.stderr], [0, '']);
    } else {
      t.diagnostic('fish is not installed: checked line by line only');
    }
    const quoted = String.raw`'(?:[^'\\]|\\.)*'`;
    const completeLine = new RegExp(
      `^complete -c exectl(?: -f| -n ${quoted}(?: -l [a-z0-9-]+)?(?: -s [a-z])?(?: -r(?: -F)?)?(?: -a (?:[a-z-]+|${quoted}))?(?: -d ${quoted})?)$`,
    );
    const lines = script.split('\n').filter((line) => line !== '');
    const helper = lines.findIndex((line) => line === 'function __exectl_command');
    const helperEnd = lines.indexOf('end', helper);
    assert.ok(helper > 0 && helperEnd > helper, 'the helper function is there and closed');
    for (const line of lines.slice(helperEnd + 1)) assert.match(line, completeLine);
    for (const name of commands) {
      assert.ok(
        lines.some((l) =>
          l.startsWith(`complete -c exectl -n 'test (__exectl_command) = exectl' -a ${name} -d '`),
        ),
        name,
      );
    }
  });
});

test('an unknown shell is a usage error', async () => {
  assertOneLineError(
    await exectl(['completion', 'tcsh'], { home: dir.path }),
    2,
    `command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish. — see "exectl completion --help"`,
  );
});
