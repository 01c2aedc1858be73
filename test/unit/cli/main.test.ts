// main() in-process: the one place failures become exit codes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';
import { capturedProcess, type CapturedProcess } from '../../helpers/io.js';

const SVC1 = 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYA';

/** A captured process; `failWrites` makes every stdout write throw. */
function fakeProcess(env: Record<string, string> = {}, failWrites = false): CapturedProcess {
  const captured = capturedProcess(env);
  if (failWrites) {
    captured.proc.stdout.write = () => {
      throw new Error('disk on fire');
    };
  }
  return captured;
}

test('success is 0; an outcome maps through the error catalogue', async () => {
  const ok = fakeProcess();
  assert.equal(await main(['inspect', SVC1], ok.proc), 0);
  assert.match(ok.stdout(), /^kind {7}svc1\n/);
  const malformed = fakeProcess();
  assert.equal(await main(['inspect', '--json', 'svc1.x'], malformed.proc), 2);
  assert.equal(malformed.stderr(), '');
});

test('an ExectlError: its exit code and one line', async () => {
  const f = fakeProcess();
  assert.equal(await main(['mint', '--exp', 'soon'], f.proc), 2);
  assert.equal(
    f.stderr(),
    'exectl: --exp "soon" is neither a duration nor a unix time — use e.g. 30s, 15m, 1h, 7d, 2w or 1y, or a unix time such as 1900000000\n',
  );
});

test('anything else is an internal error: exit 9, one line, the cause only with EXECTL_DEBUG=1', async () => {
  const quiet = fakeProcess({}, true);
  assert.equal(await main(['inspect', SVC1], quiet.proc), 9);
  assert.equal(
    quiet.stderr(),
    'exectl: internal error — rerun with EXECTL_DEBUG=1 and report it\n',
  );

  const debug = fakeProcess({ EXECTL_DEBUG: '1' }, true);
  assert.equal(await main(['inspect', SVC1], debug.proc), 9);
  const [line, stack] = debug.stderr().split('\n');
  assert.equal(line, 'exectl: internal error — rerun with EXECTL_DEBUG=1 and report it');
  assert.equal(stack, 'Error: disk on fire');
});

test('EXECTL_DEBUG=1 shows the stack of an expected error too', async () => {
  const f = fakeProcess({ EXECTL_DEBUG: '1' });
  assert.equal(await main(['inspect', 'svc0.e30.AAAA'], f.proc), 2);
  assert.match(
    f.stderr(),
    /^exectl: invalid token: malformed signature — check that the whole token was copied\nExectlError: invalid token: malformed signature\n {4}at /,
  );
});

test('a reader that goes away (EPIPE) is not reported; other write errors are', async () => {
  for (const [code, stderr] of [
    ['EPIPE', ''],
    ['EIO', 'exectl: cannot write the output (EIO)\n'],
  ] as const) {
    const f = fakeProcess();
    f.proc.stdout.write = () => {
      f.proc.stdout.emit('error', Object.assign(new Error(code), { code }));
      return false;
    };
    assert.equal(await main(['inspect', SVC1], f.proc), 0);
    assert.equal(f.stderr(), stderr, code);
  }
});
