// `exectl ssh VM -- WORDS...` with the built CLI against a real service and a real VM (the
// `process` runtime): the words are joined by spaces for the VM's shell as OpenSSH's ssh joins
// them (SPEC §8), output streams to stdout, and the exit code is the VM command's, from the
// X-Exec-Exit header (small output) or trailer (over 1 MiB).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { quoteForShell } from '../../src/shell-words.js';
import { postExec } from '../../src/cli/exec/http.js';
import { mintRequestToken } from '../../src/cli/exec/token.js';
import { loadPrivateKey } from '../../src/token/keys.js';
import { run, startAgent } from '../helpers/keys.js';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { REPO, assertBuilt, assertOneLineError, exectl, type CliResult } from './harness.js';

const FAR = 4_000_000_000;

let svc: TestService;
let home: string;

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = await homeWithOwnerKey(svc);
  const created = await exectl(['--url', svc.url, 'run', 'new', '--name', 'web'], { home });
  assert.equal(created.code, 0, created.stderr);
});
after(() => svc.stop());

/** Runs the built `exectl --url <svc> ssh ...args`. */
function ssh(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return exectl(['--url', svc.url, 'ssh', ...args], { home, env });
}

/** Characters that mean something to sh or to the service's lexer, and some that do not. */
const char = fc.oneof(
  fc.constantFrom(' ', "'", '"', '$', '\\', '\n', '\t', '`', '*', '~', '#', ';', '|', '&', '='),
  fc.constantFrom('-', 'a', '(', '{', '!', 'é', '☃', '🦀', '\u202e'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const word = fc
  .string({ unit: char, maxLength: 10 })
  .filter((w) => !w.includes('\0') && Buffer.from(w, 'utf8').toString('utf8') === w);

describe('the words, joined for the VM shell as ssh joins them', () => {
  test('property: words quoted for the VM shell reach the program byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(word, { maxLength: 5 }), async (words) => {
        const quoted = ['printf', "'%s\\0'", 'START', ...words.map(quoteForShell)];
        const result = await ssh(['web', '--', ...quoted]);
        assert.deepEqual([result.code, result.stderr], [0, '']);
        assert.equal(result.stdout, ['START', ...words].map((w) => `${w}\0`).join(''));
      }),
      { numRuns: 25 },
    );
  });

  test('one quoted word is a command line: a pipeline, a redirection, a variable of the VM', async () => {
    const count = await ssh(['web', 'ls / | wc -l']);
    const listed = await ssh(['web', 'ls', '/']);
    assert.deepEqual([count.code, count.stderr, listed.code, listed.stderr], [0, '', 0, '']);
    assert.equal(Number(count.stdout.trim()), listed.stdout.trim().split('\n').length);
    const written = await ssh(['web', 'echo hi > f.txt && cat f.txt && echo "$HOME" | wc -l']);
    assert.deepEqual([written.code, written.stdout, written.stderr], [0, 'hi\n1\n', '']);
  });

  test("the words are joined by spaces: quoting for the VM shell is the user's, as with ssh", async () => {
    const joined = await ssh(['web', 'echo', 'a  b', "'c  d'"]);
    assert.deepEqual([joined.code, joined.stdout], [0, 'a b c  d\n']);
  });

  test('no command: a usage error naming the way to a shell', async () => {
    assertOneLineError(
      await ssh(['web']),
      2,
      `exectl ssh web needs a command to run — for a shell in the VM: ssh to the VM's ssh_dest (in "exectl run ls web"); for a command: exectl ssh web uname -a`,
    );
  });

  test('a first word such as --help belongs to the program, not to ssh', async () => {
    const result = await ssh(['web', '--', 'printf', "'[%s]'", '--help', '-q']);
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, '[--help][-q]', '']);
  });

  test("parsing stops at the VM name: -q, --help and --token are the program's", async () => {
    const quiet = await ssh(['web', 'grep', '-q', 'root', '/etc/passwd']);
    assert.deepEqual([quiet.code, quiet.stdout, quiet.stderr], [0, '', '']);
    const help = await ssh(['web', 'grep', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: grep /);
    const echo = await ssh(['web', 'echo', '--token', 'x', '--url', 'y', '--']);
    assert.deepEqual([echo.code, echo.stdout, echo.stderr], [0, '--token x --url y --\n', '']);
  });

  test("exectl's own flags go before the VM name", async () => {
    const result = await exectl(['ssh', '--url', svc.url, '-q', 'web', 'echo', '-q'], { home });
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, '-q\n', '']);
  });

  test('without --, flags exectl does not know pass through', async () => {
    const result = await ssh(['web', 'printf', '%s,', '-la', 'x']);
    assert.deepEqual([result.code, result.stdout], [0, '-la,x,']);
  });
});

describe('exit codes', () => {
  test('header: the command exits 3, with its output interleaved', async () => {
    const result = await ssh(['web', '--', 'echo out; echo err >&2; exit 3']);
    assert.deepEqual(
      { code: result.code, stdout: result.stdout, stderr: result.stderr },
      { code: 3, stdout: 'out\nerr\n', stderr: '' },
    );
  });

  test('trailer: over 1 MiB streams, and the exit code comes last', async () => {
    const result = await ssh(['web', '--', 'head -c 1100000 /dev/zero; exit 5']);
    assert.equal(result.code, 5);
    assert.equal(result.stdout.length, 1_100_000);
    assert.ok(/^\0+$/.test(result.stdout));
    assert.equal(result.stderr, '');
  });

  test('trailer with exit 0', async () => {
    const result = await ssh(['web', '--', 'head', '-c', '1100000', '/dev/zero']);
    assert.deepEqual([result.code, result.stdout.length, result.stderr], [0, 1_100_000, '']);
  });

  test('422 → 1: no such VM', async () => {
    assertOneLineError(
      await ssh(['nope', 'ls']),
      1,
      'vm "nope" not found — run `exectl run ls` to see yours',
    );
  });

  test('403 → 4: the token allows another VM', async () => {
    const token = await svc.token(`{"exp":${FAR},"cmds":["ssh other"]}`);
    assertOneLineError(
      await ssh(['web', 'true'], { EXECTL_TOKEN: token }),
      4,
      `command not allowed: ssh — the token's cmds do not include "ssh": mint one with --cmds "ssh"`,
    );
  });

  test('usage → 2: a name that is not a VM name', async () => {
    assertOneLineError(
      await ssh(['Not_A_VM', 'ls']),
      2,
      '"Not_A_VM" is not a valid VM name — a VM name is lowercase letters, digits and "-", starting with a letter',
    );
  });
});

test('the token minted for `ssh web` opens web and nothing else', async () => {
  const created = await exectl(['--url', svc.url, 'run', 'new', '--name', 'other'], { home });
  assert.equal(created.code, 0, created.stderr);
  const signer = await loadPrivateKey(svc.owner.key.path, { passphrase: async () => undefined });
  const token = await mintRequestToken({
    signer,
    namespace: 'v0@localhost',
    scope: 'ssh web',
    nowSeconds: Math.floor(Date.now() / 1000),
  });
  const web = await postExec(svc.url, token, 'ssh web -- true');
  assert.deepEqual([web.status, web.headers['x-exec-exit']], [200, '0']);
  const other = await postExec(svc.url, token, 'ssh other -- true');
  assert.deepEqual(
    [other.status, other.body.toString('utf8')],
    [403, '{"error":"command not allowed: ssh"}\n'],
  );
});

describe('the same VM commands through exectl run', () => {
  // exectl run sends the line as written: the service joins the words after `--` for sh -c.
  test('the output is printed; a non-zero exit is a failed command (1)', async () => {
    const small = await exectl(['--url', svc.url, 'run', `ssh web -- 'echo out; exit 3'`], {
      home,
    });
    assert.deepEqual(
      { code: small.code, stdout: small.stdout, stderr: small.stderr },
      {
        code: 1,
        stdout: 'out\n',
        stderr:
          'exectl: the command exited with 3 — its output is above; `exectl ssh` exits with its exit code\n',
      },
    );
  });

  test('streamed past 1 MiB: the exit code from the trailer decides too', async () => {
    const big = await exectl(
      ['--url', svc.url, 'run', `ssh web -- 'head -c 1100000 /dev/zero; exit 4'`],
      { home },
    );
    assert.deepEqual(
      [big.code, big.stdout.length, big.stderr],
      [
        1,
        1_100_000,
        'exectl: the command exited with 4 — its output is above; `exectl ssh` exits with its exit code\n',
      ],
    );
  });
});

test('output streams: the first line arrives at least 1.5 s before the second', async () => {
  const child = spawn(
    process.execPath,
    [join(REPO, 'bin', 'exectl.cjs'), '--url', svc.url, 'ssh', 'web', 'echo a; sleep 2; echo b'],
    { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, NO_COLOR: '1' } },
  );
  const arrivals: { text: string; at: number }[] = [];
  child.stdout.on('data', (chunk: Buffer) =>
    arrivals.push({ text: chunk.toString('utf8'), at: performance.now() }),
  );
  const [code] = (await once(child, 'close')) as [number];
  assert.equal(code, 0);
  assert.deepEqual(
    arrivals.map((a) => a.text),
    ['a\n', 'b\n'],
  );
  // Apart by most of the 2 s between them (a late first delivery takes some of it): not
  // both at the end.
  assert.ok(arrivals[1]!.at - arrivals[0]!.at >= 1000, JSON.stringify(arrivals));
});

test('a reader that goes away early ends nothing badly: no hang, no error line', async () => {
  const bin = [process.execPath, join(REPO, 'bin', 'exectl.cjs')].join(' ');
  const script = [
    `${bin} --url ${svc.url} ssh web -- head -c 3000000 /dev/zero | head -c 5 | wc -c`,
    'echo "exit ${PIPESTATUS[0]}"',
  ].join('\n');
  const result = await run('bash', ['-c', script], { env: { HOME: home, NO_COLOR: '1' } });
  assert.deepEqual([result.code, result.stdout, result.stderr], [0, '5\nexit 0\n', '']);
});

const SLOW_READER = `perl -e 'while (sysread(STDIN, $b, 4096)) { $n += length $b; select(undef, undef, undef, 0.01) } print "$n\\n"'`;

test('a slow reader still gets every byte: exectl does not exit before its output is written', async () => {
  // The reader takes 4 KiB every 10 ms: the pipe stays full, and when the command ends the
  // last of its output still waits in exectl's own buffer (a pipe takes writes
  // asynchronously).
  const bin = [process.execPath, join(REPO, 'bin', 'exectl.cjs')].join(' ');
  const script = [
    `${bin} --url ${svc.url} ssh web -- 'head -c 1000000 /dev/zero; sleep 0.3; echo end' | ${SLOW_READER}`,
    'echo "exit ${PIPESTATUS[0]}"',
  ].join('\n');
  const result = await run('bash', ['-c', script], { env: { HOME: home, NO_COLOR: '1' } });
  assert.deepEqual([result.code, result.stdout, result.stderr], [0, '1000004\nexit 0\n', '']);
});

describe('a command past the deadline', () => {
  let quick: TestService;
  before(async () => {
    // 3 s: the VM's first output comes before it on a loaded machine too.
    quick = await startTestService({ commandDeadlineMs: 3000 });
    const made = await exectl(['--url', quick.url, 'run', 'new', '--name', 'slow'], {
      home: await homeWithOwnerKey(quick),
    });
    assert.equal(made.code, 0, made.stderr);
  });
  after(() => quick.stop());

  test('what arrived before the timeout is printed, then the one-line error (7)', async () => {
    const result = await exectl(['--url', quick.url, 'ssh', 'slow', 'echo partial; sleep 10'], {
      home: await homeWithOwnerKey(quick),
    });
    assert.deepEqual(
      { code: result.code, stdout: result.stdout, stderr: result.stderr },
      {
        code: 7,
        stdout: 'partial\n',
        stderr:
          "exectl: command timed out after 3s — its output so far is above; a session over the VM's own SSH server has no limit (ssh to ssh_dest of `exectl run ls`), or run long jobs in the background (nohup, setsid)\n",
      },
    );
  });

  test('504 → 7', async () => {
    assertOneLineError(
      await exectl(['--url', quick.url, 'ssh', 'slow', '--', 'sleep', '10'], {
        home: await homeWithOwnerKey(quick),
      }),
      7,
      "command timed out after 3s — commands stop after 30 s: a session over the VM's own SSH server has no limit (ssh to ssh_dest of `exectl run ls`), or run long jobs in the background (nohup, setsid)",
    );
  });
});

describe('stdin (SPEC §6a: never dropped silently)', () => {
  test('input on a pipe is refused in one line naming the SSH destination (it left a 0-byte file)', async () => {
    const result = await exectl(['--url', svc.url, 'ssh', 'web', 'cat > app.py'], {
      home,
      input: 'print("hello")\n',
    });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^exectl: exectl ssh does not forward stdin: use ssh vm\+web@127\.0\.0\.1 \(with -p ssh_port\) — [^\n]*\n$/,
    );
    const ran = await ssh(['web', 'test -e app.py && echo ran || echo not-run']);
    assert.equal(ran.stdout, 'not-run\n');
  });

  test('a closed or empty stdin is empty input: the command runs', async () => {
    const result = await ssh(['web', 'echo', 'fine']);
    assert.equal(result.stdout, 'fine\n', result.stderr);
    assert.equal(result.code, 0);
  });
});

describe('stdin over the VM SSH server (SSH listener on)', () => {
  let on: TestService;
  let onHome: string;
  before(async () => {
    on = await startTestService({ sshListen: { host: '127.0.0.1', port: 0 } });
    onHome = await homeWithOwnerKey(on);
    const created = await exectl(['--url', on.url, 'run', 'new', '--name', 'web'], {
      home: onHome,
    });
    assert.equal(created.code, 0, created.stderr);
  });
  after(() => on.stop());

  test('input on a pipe reaches the command; stdout and stderr apart; its exit status', async () => {
    const result = await exectl(
      ['--url', on.url, 'ssh', 'web', 'cat > app.py; wc -c < app.py; echo err >&2; exit 4'],
      { home: onHome, input: 'print("hello")\n' },
    );
    assert.equal(result.stdout, '15\n');
    assert.equal(result.stderr, 'err\n');
    assert.equal(result.code, 4);
    const back = await exectl(['--url', on.url, 'ssh', 'web', 'cat', 'app.py'], { home: onHome });
    assert.equal(back.stdout, 'print("hello")\n');
  });

  test("a file on stdin: `exectl ssh web 'cat > f' < f` writes it in the VM, byte for byte", async () => {
    const file = on.dir.join('index.html');
    await writeFile(file, '<h1>hello</h1>\n');
    const bin = [process.execPath, join(REPO, 'bin', 'exectl.cjs')].join(' ');
    const script = `${bin} --url ${on.url} ssh web 'cat > index.html' < ${file} && echo sent`;
    const sent = await run('bash', ['-c', script], { env: { HOME: onHome, NO_COLOR: '1' } });
    assert.deepEqual([sent.code, sent.stdout, sent.stderr], [0, 'sent\n', '']);
    const back = await exectl(['--url', on.url, 'ssh', 'web', 'cat index.html'], { home: onHome });
    assert.deepEqual([back.code, back.stdout], [0, '<h1>hello</h1>\n']);
  });

  test('no command: the hint is the exact ssh line of the VM', async () => {
    const port = on.service.endpoints.ssh?.port;
    assertOneLineError(
      await exectl(['--url', on.url, 'ssh', 'web'], { home: onHome }),
      2,
      `exectl ssh web needs a command to run — for a shell in the VM: ssh -p ${port} vm+web@localhost; for a command: exectl ssh web uname -a`,
    );
  });

  test('the key may be in ssh-agent only (no key file): it signs the SSH session', async () => {
    const agentDir = on.dir.join('agent');
    await mkdir(agentDir);
    const agent = await startAgent(agentDir);
    try {
      await agent.add(on.owner.key);
      const bare = on.dir.join('bare-home');
      await mkdir(bare);
      const result = await exectl(['--url', on.url, 'ssh', 'web', 'wc', '-c'], {
        home: bare,
        input: 'abc',
        env: { SSH_AUTH_SOCK: agent.socketPath },
      });
      assert.equal(result.stdout, '3\n', result.stderr);
      assert.equal(result.code, 0);
    } finally {
      await agent.stop();
    }
  });

  test('with a configured token (it cannot sign SSH) input is refused, naming the destination', async () => {
    const result = await exectl(['--url', on.url, 'ssh', 'web', 'cat'], {
      home: onHome,
      input: 'x',
      env: { EXECTL_TOKEN: 'svc0.not-a-token' },
    });
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^exectl: exectl ssh does not forward stdin: use ssh vm\+web@127\.0\.0\.1/,
    );
  });
});

describe('past the deadline with the SSH listener on', () => {
  let slow: TestService;
  let slowHome: string;
  before(async () => {
    slow = await startTestService({
      commandDeadlineMs: 3000,
      sshListen: { host: '127.0.0.1', port: 0 },
    });
    slowHome = await homeWithOwnerKey(slow);
    const made = await exectl(['--url', slow.url, 'run', 'new', '--name', 'slow'], {
      home: slowHome,
    });
    assert.equal(made.code, 0, made.stderr);
  });
  after(() => slow.stop());

  test('the timeout names the exact ssh line that has no limit', async () => {
    const port = slow.service.endpoints.ssh?.port;
    assertOneLineError(
      await exectl(['--url', slow.url, 'ssh', 'slow', 'sleep 10'], { home: slowHome }),
      7,
      `command timed out after 3s — commands stop after 30 s: ssh -p ${port} vm+slow@localhost has no limit, or run it in the background (nohup, setsid)`,
    );
  });
});
