// The interactive session, through the real OpenSSH client on a real pty: prompt, commands,
// help, line editing, history, Ctrl-C, Ctrl-D, exit. And the pty-less shell reading lines.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { runUntilCancelled } from './fixtures.js';
import { startSshHarness, type SshHarness } from './harness.js';
import { PtyClient } from './pty-client.js';

const PROMPT = 'exectl> ';
const WHOAMI_JSON = /\{"email":"owner@example\.com",[^\r\n]*\}\r\n/;

let h: SshHarness;
let clients: PtyClient[] = [];
before(async () => {
  const registry = buildRegistry();
  registry.register(runUntilCancelled);
  h = await startSshHarness({ registry });
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  clients = [];
});
after(() => h?.close());

function repl(): PtyClient {
  const client = new PtyClient(h.sshArgs(undefined));
  clients.push(client);
  return client;
}

/** Log lines of commands run since `from`, as their `cmd=` and `status=`. */
function commandsLogged(from: number): string[] {
  return h.logs.slice(from).map((l) => / cmd=("[^"]*") status=(\d+) /.exec(l)!.slice(1).join(' '));
}

test('repl: greeting and prompt, a command, help, then exit ends the session with 0', async () => {
  const c = repl();
  await c.waitFor('exectl: signed in as owner@example.com\r\n');
  await c.waitFor(PROMPT);
  c.type('whoami --json\r');
  await c.waitFor(WHOAMI_JSON);
  await c.waitFor(PROMPT);
  c.type('help\r');
  const help = await c.waitFor(PROMPT);
  assert.match(help, /\r\nwhoami +Show your account/);
  assert.match(help, /\r\nssh-key <subcommand> +Manage your SSH keys/);
  assert.ok(!/[^\r]\n/.test(help), 'every line feed on the pty is preceded by CR');
  c.type('exit\r');
  assert.equal(await c.exitCode(), 0);
});

test('repl: a failing command prints its error and the session goes on', async () => {
  const from = h.logs.length;
  const c = repl();
  await c.waitFor(PROMPT);
  c.type('frobnicate\r');
  await c.waitFor('error: unknown command: frobnicate\r\n');
  await c.waitFor(PROMPT);
  c.type('whoam\r');
  await c.waitFor('error: unknown command: whoam — did you mean "whoami"?\r\n');
  await c.waitFor(PROMPT);
  c.type('whoami --json\r');
  await c.waitFor(WHOAMI_JSON);
  c.type('quit\r');
  assert.equal(await c.exitCode(), 0);
  assert.deepEqual(commandsLogged(from), ['"-" 404', '"-" 404', '"whoami" 200']);
});

test('repl: backspace, arrows and Home edit the line before it runs', async () => {
  const from = h.logs.length;
  const c = repl();
  await c.waitFor(PROMPT);
  // Typed: "hoamX", backspace, "i --jsn", Left, "o", Home, "w" — the line is "whoami --json".
  c.type('hoamX\x7fi --jsn\x1b[Do\x1b[Hw\r');
  await c.waitFor(WHOAMI_JSON);
  c.type('exit\r');
  assert.equal(await c.exitCode(), 0);
  assert.deepEqual(commandsLogged(from), ['"whoami" 200']);
});

test('repl: Up recalls the previous line', async () => {
  const from = h.logs.length;
  const c = repl();
  await c.waitFor(PROMPT);
  c.type('whoami --json\r');
  await c.waitFor(WHOAMI_JSON);
  await c.waitFor(PROMPT);
  c.type('\x1b[A\r');
  await c.waitFor(WHOAMI_JSON);
  c.type('exit\r');
  assert.equal(await c.exitCode(), 0);
  assert.deepEqual(commandsLogged(from), ['"whoami" 200', '"whoami" 200']);
});

test('repl: Ctrl-C abandons the line being typed', async () => {
  const from = h.logs.length;
  const c = repl();
  await c.waitFor(PROMPT);
  c.type('frobnicate');
  await c.waitFor('frobnicate');
  c.type('\x03');
  await c.waitFor(`^C\r\n${PROMPT}`);
  c.type('whoami --json\r');
  await c.waitFor(WHOAMI_JSON);
  c.type('\x04');
  assert.equal(await c.exitCode(), 0);
  assert.deepEqual(commandsLogged(from), ['"whoami" 200']);
});

test('repl: Ctrl-C cancels the running command and gives the prompt back', async () => {
  const from = h.logs.length;
  const c = repl();
  await c.waitFor(PROMPT);
  c.type('run-until-cancelled\r');
  await c.waitFor('running\r\n');
  c.type('\x03');
  await c.waitFor(`^C\r\n${PROMPT}`);
  c.type('exit\r');
  assert.equal(await c.exitCode(), 0);
  assert.deepEqual(commandsLogged(from), ['"run-until-cancelled" 499']);
});

test('repl: Ctrl-D on an empty line ends the session with 0', async () => {
  const c = repl();
  await c.waitFor(PROMPT);
  c.type('\x04');
  assert.equal(await c.exitCode(), 0);
});

test('exec on a pty: Ctrl-C cancels the command, the status is 130', async () => {
  const c = new PtyClient(h.sshArgs('run-until-cancelled'));
  clients.push(c);
  const from = h.logs.length;
  await c.waitFor('running\r\n');
  c.type('\x03');
  await c.waitFor('^C\r\n');
  assert.equal(await c.exitCode(), 130);
  assert.deepEqual(commandsLogged(from), ['"run-until-cancelled" 499']);
});

test('shell without a pty: each input line is a command, the status is the last one', async () => {
  const input = 'whoami --json\n\nfrobnicate\nwhoam\n';
  const r = await h.ssh(undefined, { extra: ['-T'], input });
  assert.match(r.stdout, /^\{"email":"owner@example\.com",.*\}\n$/);
  // A likely typo gets the nearest command (issue 28); a far word gets none.
  assert.equal(
    r.stderr,
    'error: unknown command: frobnicate\nerror: unknown command: whoam — did you mean "whoami"?\n',
  );
  assert.equal(r.code, 5);
});

test('shell without a pty: exit stops reading, with the last status', async () => {
  const r = await h.ssh(undefined, { extra: ['-T'], input: 'whoami --json\nexit\nfrobnicate\n' });
  assert.equal(r.stderr, '');
  assert.equal(r.code, 0);
});

test('shell without a pty: an overlong line fails alone; many waiting lines are all read', async () => {
  const input = ['x'.repeat(70_000), 'whoami --json', ...Array(100).fill(''), 'frobnicate', ''];
  const r = await h.ssh(undefined, { extra: ['-T'], input: input.join('\n') });
  assert.equal(
    r.stderr,
    'error: command line exceeds 65536 bytes\nerror: unknown command: frobnicate\n',
  );
  assert.match(r.stdout, /^\{"email":"owner@example\.com",.*\}\n$/);
  assert.equal(r.code, 5);
});

test('shell without a pty: 20 KB of blank lines are read one after another, not recursively', async () => {
  // One recursive call per blank line once overflowed the stack and took the server down.
  const input = '\n'.repeat(20_000) + 'whoami --json\n' + '\n'.repeat(200_000);
  const r = await h.ssh(undefined, { extra: ['-T'], input });
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^\{"email":"owner@example\.com",.*\}\n$/);
  assert.equal(r.code, 0);
  assert.equal((await h.ssh('whoami --json')).code, 0, 'the server still serves');
});
