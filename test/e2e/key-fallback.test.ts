// The right key without asking (SPEC §8, issue 28): with no --key, a minted request refused with
// 401 is sent again with each further candidate key (every ssh-agent key, then ~/.ssh), the key
// that worked is remembered per server in the cache folder and tried first next time, and
// stderr names the key and the account whenever it is not the first candidate. The built CLI,
// a real ssh-agent, a real service.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { decodeSvc0Unverified } from '../../src/token/decode.js';
import { parsePublicKey } from '../../src/token/keys.js';
import {
  generateKey,
  run,
  startAgent,
  type GeneratedKey,
  type TestAgent,
} from '../helpers/keys.js';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, assertOneLineError, exectl, type CliResult } from './harness.js';

let svc: TestService;
let home: string;
let ownerFile: string;
let stranger: GeneratedKey;
let otherStranger: GeneratedKey;
let bob: GeneratedKey;
/** Holds the stranger's key only. */
let strangerAgent: TestAgent;
/** Holds the stranger's key, then bob's (another account's). */
let bobAgent: TestAgent;
/** Holds two keys no account has. */
let strangersAgent: TestAgent;
/** Holds bob's key only: accepted at once, while ~/.ssh holds the owner's. */
let bobOnlyAgent: TestAgent;
let cacheCount = 0;

const fp = (key: GeneratedKey) => parsePublicKey(key.publicKeyLine).fingerprint;

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = await homeWithOwnerKey(svc);
  ownerFile = join(home, '.ssh', 'id_ed25519');
  stranger = await generateKey(svc.dir.path, 'ed25519', { name: 'stranger' });
  otherStranger = await generateKey(svc.dir.path, 'ecdsa-256', { name: 'other-stranger' });
  bob = await svc.addAccount('bob@example.com');
  const agentAt = async (name: string, keys: GeneratedKey[]) => {
    await mkdir(svc.dir.join(name));
    const agent = await startAgent(svc.dir.join(name));
    for (const key of keys) await agent.add(key);
    return agent;
  };
  strangerAgent = await agentAt('agent-stranger', [stranger]);
  bobAgent = await agentAt('agent-bob', [stranger, bob]);
  strangersAgent = await agentAt('agent-strangers', [stranger, otherStranger]);
  bobOnlyAgent = await agentAt('agent-bob-only', [bob]);
  const created = await exectl(['--url', svc.url, 'run', 'new', '--name', 'web'], { home });
  assert.equal(created.code, 0, created.stderr);
});
after(async () => {
  await strangerAgent.stop();
  await bobAgent.stop();
  await strangersAgent.stop();
  await bobOnlyAgent.stop();
  await svc.stop();
});

/** A fresh, empty cache folder: nothing remembered yet. */
function freshCache(): string {
  cacheCount += 1;
  return svc.dir.join(`cache-${cacheCount}`);
}

/** Runs the built exectl against the service with `agent` and the cache folder `cache`. */
function cli(args: readonly string[], agent: TestAgent, cache: string): Promise<CliResult> {
  return exectl(['--url', svc.url, ...args], {
    home,
    env: { SSH_AUTH_SOCK: agent.socketPath, XDG_CACHE_HOME: cache },
  });
}

/** The notice of a fallback: who the command acts as, with which key, after which refusals. */
function notice(account: string, used: string, refused: string[]): string {
  return (
    `exectl: acting as ${account}, signed by ${used} (the server refused ${refused.join(', then ')})` +
    ` — this key is tried first for ${svc.url} from now on\n`
  );
}

const whoamiOf = (result: CliResult) => (JSON.parse(result.stdout) as { email: string }).email;

/**
 * The service's log lines from `from` on, once the line of a `cmd` request has been written
 * (a request's line may come just after its answer): bounded, never a fixed sleep.
 */
async function logsUntil(from: number, cmd: string): Promise<string[]> {
  for (let waited = 0; ; waited += 20) {
    const lines = svc.logs.slice(from);
    if (lines.some((l) => l.includes(`cmd=${JSON.stringify(cmd)}`))) return lines;
    assert.ok(waited < 20_000, `no log line for ${cmd}: ${lines.join('\n')}`);
    await sleep(20);
  }
}

describe('an unregistered key in ssh-agent, the registered one in ~/.ssh', () => {
  let cache: string;
  before(() => {
    cache = freshCache();
  });

  test('run whoami acts as the owner and says with which key, after the refused one', async () => {
    const result = await cli(['run', 'whoami'], strangerAgent, cache);
    assert.deepEqual(
      { code: result.code, who: whoamiOf(result), stderr: result.stderr },
      {
        code: 0,
        who: 'owner@example.com',
        stderr: notice('owner@example.com', `key ${fp(svc.owner.key)} from file ${ownerFile}`, [
          `key ${fp(stranger)} from ssh-agent`,
        ]),
      },
    );
  });

  test('the key is remembered in the cache folder: 0600, a fingerprint and a path, no secret', async () => {
    const file = join(cache, 'exectl', 'keys.json');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
      [svc.url]: { fingerprint: fp(svc.owner.key), source: 'file', path: ownerFile },
    });
  });

  test('the next run tries the remembered key first: no 401, nothing said', async () => {
    const from = svc.logs.length;
    const result = await cli(['run', 'whoami'], strangerAgent, cache);
    assert.deepEqual([result.code, whoamiOf(result), result.stderr], [0, 'owner@example.com', '']);
    const requests = (await logsUntil(from, 'whoami'))
      .map((l) => / via=http key=(\S+) cmd="([^"]*)" status=(\d+)/.exec(l)?.slice(1))
      .filter((r) => r !== undefined);
    assert.deepEqual(requests, [[fp(svc.owner.key), 'whoami', '200']]);
  });

  test('mint signs with the remembered key too', async () => {
    const minted = await cli(['mint', '--cmds', 'whoami'], strangerAgent, cache);
    assert.deepEqual([minted.code, minted.stderr], [0, '']);
    const token = minted.stdout.trim();
    assert.equal(decodeSvc0Unverified(token).signer?.fingerprint, fp(svc.owner.key));
  });

  test('auth status shows the remembered key first, as the one that signs', async () => {
    const result = await cli(['auth', 'status'], strangerAgent, cache);
    assert.deepEqual(
      { code: result.code, stdout: result.stdout, stderr: result.stderr },
      {
        code: 0,
        stdout:
          `url:     ${svc.url}\n` +
          'profile: none\n' +
          'keys, in the order exectl tries them:\n' +
          `  * ${fp(svc.owner.key)}  file ${ownerFile}  known: owner@example.com, key "default"\n` +
          `    ${fp(stranger)}  ssh-agent  not known to the server\n` +
          `signs:   key ${fp(svc.owner.key)} from file ${ownerFile} (marked *, the key that worked last time)\n`,
        stderr: '',
      },
    );
  });
});

describe('ssh and mint --svc1 fall back too', () => {
  test('ssh web runs as the owner after the agent key is refused', async () => {
    const result = await cli(['ssh', 'web', 'echo', 'hi'], strangerAgent, freshCache());
    assert.deepEqual(
      [result.code, result.stdout, result.stderr],
      [
        0,
        'hi\n',
        notice('owner@example.com', `key ${fp(svc.owner.key)} from file ${ownerFile}`, [
          `key ${fp(stranger)} from ssh-agent`,
        ]),
      ],
    );
  });

  test('mint --svc1 signs both tokens with the key that works', async () => {
    const minted = await cli(['mint', '--svc1', '--cmds', 'whoami'], strangerAgent, freshCache());
    assert.equal(minted.code, 0, minted.stderr);
    assert.equal(
      minted.stderr,
      notice('owner@example.com', `key ${fp(svc.owner.key)} from file ${ownerFile}`, [
        `key ${fp(stranger)} from ssh-agent`,
      ]),
    );
    const svc1 = minted.stdout.trim();
    assert.match(svc1, /^svc1\./);
    const used = await exectl(['--url', svc.url, 'run', '--token', svc1, 'whoami'], { home });
    assert.deepEqual([used.code, whoamiOf(used)], [0, 'owner@example.com']);
  });
});

describe('a second account’s key in the agent', () => {
  test('the first key accepted is used: bob’s, named with its account on stderr', async () => {
    const cache = freshCache();
    const result = await cli(['run', 'whoami'], bobAgent, cache);
    assert.deepEqual(
      { code: result.code, who: whoamiOf(result), stderr: result.stderr },
      {
        code: 0,
        who: 'bob@example.com',
        stderr: notice('bob@example.com', `key ${fp(bob)} from ssh-agent`, [
          `key ${fp(stranger)} from ssh-agent`,
        ]),
      },
    );
    const again = await cli(['run', 'whoami'], bobAgent, cache);
    assert.deepEqual([again.code, whoamiOf(again), again.stderr], [0, 'bob@example.com', '']);
  });
});

describe('the first contact with a server, with several keys that could sign', () => {
  test('the first key accepted is named with its account once, then remembered: silent', async () => {
    const cache = freshCache();
    const result = await cli(['run', 'whoami'], bobOnlyAgent, cache);
    assert.deepEqual(
      { code: result.code, who: whoamiOf(result), stderr: result.stderr },
      {
        code: 0,
        who: 'bob@example.com',
        stderr:
          `exectl: acting as bob@example.com, signed by key ${fp(bob)} from ssh-agent` +
          ` (the first of 2 keys; --key picks another) — this key is tried first for ${svc.url}` +
          ` from now on\n`,
      },
    );
    const again = await cli(['run', 'whoami'], bobOnlyAgent, cache);
    assert.deepEqual([again.code, whoamiOf(again), again.stderr], [0, 'bob@example.com', '']);
  });
});

describe('no fallback, and every key named, where SPEC §8 says so', () => {
  test('--key given: its 401 stays a 401, naming that key, and nothing is remembered', async () => {
    const cache = freshCache();
    const result = await cli(['run', '--key', stranger.path, 'whoami'], strangersAgent, cache);
    assertOneLineError(
      result,
      3,
      `invalid token (key ${fp(stranger)} from ssh-agent) — \`exectl auth status\` shows which key signs and whether the server knows it`,
    );
    await assert.rejects(stat(join(cache, 'exectl', 'keys.json')), { code: 'ENOENT' });
  });

  test('EXECTL_KEY given: the same', async () => {
    const result = await exectl(['--url', svc.url, 'run', 'whoami'], {
      home,
      env: { EXECTL_KEY: otherStranger.path, XDG_CACHE_HOME: freshCache() },
    });
    assertOneLineError(
      result,
      3,
      `invalid token (key ${fp(otherStranger)} from file ${otherStranger.path}) — \`exectl auth status\` shows which key signs and whether the server knows it`,
    );
  });

  test('every key refused: the 401 names each, in the order tried', async () => {
    const bare = svc.dir.join('bare-home');
    await mkdir(bare, { recursive: true });
    const result = await exectl(['--url', svc.url, 'run', 'whoami'], {
      home: bare,
      env: { SSH_AUTH_SOCK: strangersAgent.socketPath },
    });
    assertOneLineError(
      result,
      3,
      `invalid token (key ${fp(stranger)} from ssh-agent, then key ${fp(otherStranger)} from ssh-agent) — \`exectl auth status\` shows which key signs and whether the server knows it`,
    );
  });
  test('a further key file that cannot be loaded now is passed over, and named', async () => {
    const locked = svc.dir.join('locked-home');
    await mkdir(join(locked, '.ssh'), { recursive: true });
    const key = await generateKey(join(locked, '.ssh'), 'ecdsa-256', {
      name: 'id_ecdsa',
      passphrase: 'pw',
    });
    const result = await exectl(['--url', svc.url, 'run', 'whoami'], {
      home: locked,
      env: { SSH_AUTH_SOCK: strangerAgent.socketPath },
    });
    assert.deepEqual([result.code, result.stdout], [3, '']);
    assert.ok(
      result.stderr.startsWith(
        `exectl: invalid token (key ${fp(stranger)} from ssh-agent, then file ${key.path}, not loaded: `,
      ),
      result.stderr,
    );
  });
  test('an agent that will not sign with a key: passed over, the same key from ~/.ssh used', async () => {
    // ssh-add -c: each use must be confirmed, and this agent's askpass always says no.
    const folder = svc.dir.join('agent-confirm');
    await mkdir(folder);
    const socketPath = join(folder, 'agent.sock');
    const child = spawn('ssh-agent', ['-D', '-a', socketPath], {
      stdio: 'ignore',
      env: {
        ...process.env,
        SSH_ASKPASS: '/bin/false',
        SSH_ASKPASS_REQUIRE: 'force',
        DISPLAY: ':0',
      },
    });
    try {
      for (let waited = 0; !(await stat(socketPath).catch(() => undefined)); waited += 20) {
        assert.ok(waited < 20_000 && child.exitCode === null, 'ssh-agent did not start');
        await sleep(20);
      }
      const env = { SSH_AUTH_SOCK: socketPath };
      assert.equal((await run('ssh-add', ['-q', stranger.path], { env })).code, 0);
      assert.equal((await run('ssh-add', ['-q', '-c', svc.owner.key.path], { env })).code, 0);
      const result = await exectl(['--url', svc.url, 'run', 'whoami'], {
        home,
        env: { ...env, XDG_CACHE_HOME: freshCache() },
      });
      assert.deepEqual(
        { code: result.code, who: whoamiOf(result), stderr: result.stderr },
        {
          code: 0,
          who: 'owner@example.com',
          stderr: notice('owner@example.com', `key ${fp(svc.owner.key)} from file ${ownerFile}`, [
            `key ${fp(stranger)} from ssh-agent`,
          ]),
        },
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
