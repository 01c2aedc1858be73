// Interactive shells in both runtimes (real bwrap sandboxes, real processes, a real pty made by
// util-linux script inside the VM), driven through plain streams as the SSH front end does.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { PtySpec, RuntimeKind, ShellSession, VmSpec } from '../../../src/service/vm/index.js';
import {
  hostPidsWith,
  onlyHostSleeper,
  openVmFixture,
  uniqueMarker,
  type VmFixture,
} from './fixture.js';

/** How long to wait for expected output before failing (a bound, not a timing assertion). */
const WAIT_MS = 15_000;
const PTY: PtySpec = { cols: 91, rows: 27, term: 'xterm-256color' };

/** One shell on a fake terminal: type into it, wait for what its screen shows. */
class ShellScreen {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly session: ShellSession;
  readonly controller = new AbortController();
  #text = '';
  #seen = 0;

  constructor(fx: VmFixture, vm: VmSpec, pty: PtySpec = PTY) {
    this.output.on('data', (chunk: Buffer) => (this.#text += chunk.toString('utf8')));
    this.session = fx.runtime.shell(vm, {
      pty,
      env: { EXECTL_REFLECTION_URL: 'http://127.0.0.1:7071/vm/s3cr3t' },
      signal: this.controller.signal,
      input: this.input,
      output: this.output,
    });
  }

  type(keys: string): void {
    this.input.write(keys);
  }

  /** Waits for `pattern` in output not consumed yet, and consumes up to the end of the match. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const match = pattern.exec(this.#text.slice(this.#seen));
      if (match !== null) {
        this.#seen += match.index + match[0].length;
        return match;
      }
      if (Date.now() > deadline) {
        throw new Error(`never saw ${pattern}; the screen showed:\n${JSON.stringify(this.#text)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Types a command line and returns what it printed, between two marker lines. The echo of
   * the typed line shows the markers in quotes (maybe wrapped), the output shows them bare.
   * `command` must end like a command in a list: `cmd &` is written `cmd & true`.
   */
  async run(command: string): Promise<string> {
    const [start, end] = [uniqueMarker(), uniqueMarker()];
    this.type(`echo "<${start}>"; ${command}; echo "<${end}>"\r`);
    const match = await this.waitFor(
      new RegExp(`(?<!")<${escaped(start)}>\\r\\n([\\s\\S]*?)<${escaped(end)}>\\r\\n`),
    );
    return match[1]!;
  }
}

function escaped(marker: string): string {
  return marker.replace('.', '\\.');
}

for (const kind of ['bwrap', 'process'] satisfies RuntimeKind[]) {
  describe(`${kind} runtime: interactive shell`, () => {
    let fx: VmFixture;
    let vm: VmSpec;

    before(async () => {
      fx = await openVmFixture(kind);
      vm = await fx.create('shell-vm', { GREETING: 'hi there' });
    });
    after(() => fx.close());

    test('a shell on a terminal of its own: prompt, echo, arithmetic, tty, size, exit status', async () => {
      const s = new ShellScreen(fx, vm);
      await s.waitFor(/# $/);
      assert.equal(await s.run('echo $((6*7))'), '42\r\n');
      assert.match(await s.run('tty'), /^\/dev\/pts\/\d+\r\n$/);
      assert.equal(await s.run('stty size'), '27 91\r\n');
      if (kind === 'bwrap') assert.equal(await s.run('hostname'), 'shell-vm\r\n');
      s.type('exit 3\r');
      assert.deepEqual(await s.session.exited, { exitCode: 3, aborted: false });
      // The streams belong to the caller: the keyboard is let go, the screen left open.
      assert.equal(s.output.writableEnded, false);
      assert.equal(s.input.readableFlowing, false);
    });

    test('the env is that of a command plus TERM and SHELL; the shell is bash when installed', async () => {
      const shell = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
      const s = new ShellScreen(fx, vm);
      const env = await s.run('echo "$TERM|$SHELL|$0|$GREETING|$EXECTL_REFLECTION_URL|$PATH"');
      assert.equal(
        env,
        `xterm-256color|${shell}|${shell}|hi there|http://127.0.0.1:7071/vm/s3cr3t|` +
          '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/exectl/bin\r\n',
      );
      s.type('exit\r');
      assert.deepEqual(await s.session.exited, { exitCode: 0, aborted: false });
    });

    test('keys typed before the shell started are not lost; Ctrl-C is for the VM terminal', async () => {
      const s = new ShellScreen(fx, vm);
      s.type('echo typed-ahead\r');
      await s.waitFor(/(?<!echo )typed-ahead\r\n/);
      s.type('sleep 300\r');
      await s.waitFor(/sleep 300\r\n/);
      s.type('\x03');
      // The terminal shows ^C and the shell gives a new prompt; the session goes on.
      await s.waitFor(/\^C/);
      assert.equal(await s.run('echo still-here'), 'still-here\r\n');
      s.type('\x04');
      assert.deepEqual(await s.session.exited, { exitCode: 0, aborted: false });
    });

    test('resize: the foreground job gets SIGWINCH and sees the new size', async () => {
      const s = new ShellScreen(fx, vm);
      s.type(
        `sh -c 'trap "stty size; exit 0" WINCH; echo waiting; while :; do sleep 0.05; done'\r`,
      );
      await s.waitFor(/(?<!echo )waiting\r\n/);
      s.session.resize(132, 43);
      await s.waitFor(/^43 132\r\n/);
      assert.equal(await s.run('stty size'), '43 132\r\n');
      s.type('exit\r');
      await s.session.exited;
    });

    test('resize: of a burst of sizes, the last one stays', async () => {
      const s = new ShellScreen(fx, vm);
      for (const [cols, rows] of [
        [100, 30],
        [110, 33],
        [120, 40],
      ] as const) {
        s.session.resize(cols, rows);
      }
      await waitUntil(async () => (await s.run('stty size')) === '40 120\r\n');
      assert.equal(await s.run('stty size'), '40 120\r\n');
      s.type('exit\r');
      await s.session.exited;
    });

    test('a pty the client could not size starts at the kernel default, and TERM falls back to dumb', async () => {
      const s = new ShellScreen(fx, vm, { cols: 0, rows: 0, term: 'bad term\u0000' });
      assert.equal(await s.run('stty size; echo $TERM'), '0 0\r\ndumb\r\n');
      s.type('exit\r');
      await s.session.exited;
    });

    test('background jobs outlive the shell like any VM process', async () => {
      const marker = uniqueMarker();
      const s = new ShellScreen(fx, vm);
      await s.run(`sleep ${marker} > /dev/null 2>&1 & true`);
      s.type('exit\r');
      assert.equal((await s.session.exited).exitCode, 0);
      await onlyHostSleeper(marker);
      await fx.runtime.restart(vm);
      assert.deepEqual(await hostPidsWith(`sleep ${marker}`), []);
    });

    test('abort hangs the terminal up: the foreground job dies, nohup lives on', async () => {
      const [foreground, survivor] = [uniqueMarker(), uniqueMarker()];
      const s = new ShellScreen(fx, vm);
      await s.run(`nohup sleep ${survivor} > /dev/null 2>&1 & true`);
      s.type(`sleep ${foreground}\r`);
      await s.waitFor(new RegExp(`sleep ${escaped(foreground)}\\r\\n`));
      await waitUntil(async () => (await hostPidsWith(`sleep ${foreground}`)).length === 1);
      s.controller.abort(new Error('client gone'));
      const ended = await s.session.exited;
      assert.equal(ended.aborted, true);
      await waitUntil(async () => (await hostPidsWith(`sleep ${foreground}`)).length === 0);
      await onlyHostSleeper(survivor);
      await fx.runtime.restart(vm);
      assert.deepEqual(await hostPidsWith(`sleep ${survivor}`), []);
    });

    test('an aborted signal starts nothing; a shut-down runtime refuses', async () => {
      const controller = new AbortController();
      controller.abort(new Error('gone already'));
      const session = fx.runtime.shell(vm, {
        pty: PTY,
        signal: controller.signal,
        input: new PassThrough(),
        output: new PassThrough(),
      });
      await assert.rejects(session.exited, /gone already/);
      const other = await openVmFixture(kind);
      const spare = await other.create('spare');
      await other.runtime.shutdown();
      const refused = other.runtime.shell(spare, {
        pty: PTY,
        input: new PassThrough(),
        output: new PassThrough(),
      });
      await assert.rejects(refused.exited, /shut down/);
      await other.close();
    });
  });
}

/** Polls `check` until it holds (processes end asynchronously after a hangup). */
async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
