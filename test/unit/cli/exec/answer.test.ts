// Failed /exec answers as ExectlErrors: the catalogue code (and so SPEC §8's exit code) of each
// status, the server's message, and the hint that says what to do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ExecResponse } from '../../../../src/cli/exec/http.js';
import {
  clientCodeForStatus,
  failureKind,
  responseError,
  retryAfterSeconds,
} from '../../../../src/cli/exec/answer.js';

const URL = 'http://127.0.0.1:7070';

function json(status: number, body: unknown, headers: Record<string, string> = {}): ExecResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(`${JSON.stringify(body)}\n`),
    trailers: {},
  };
}

test('SPEC §8 exit codes of every status, agreeing with the catalogue', () => {
  const cases: [number, string, number][] = [
    [400, 'bad_request', 2],
    [401, 'unauthorized', 3],
    [403, 'forbidden', 4],
    [404, 'unknown_command', 5],
    [405, 'method_not_allowed', 2],
    [413, 'body_too_large', 2],
    [422, 'command_failed', 1],
    [429, 'rate_limited', 6],
    [504, 'timeout', 7],
    [500, 'server_error', 9],
    [502, 'server_error', 9],
    [503, 'server_error', 9],
    [418, 'bad_request', 2],
  ];
  for (const [status, code, exit] of cases) {
    const err = responseError(json(status, { error: 'x' }), { url: URL, scope: 'ls' });
    assert.deepEqual([err.code, err.exitCode], [code, exit], String(status));
  }
});

test('responseError: the server message and a hint per status', () => {
  const cases: [ExecResponse, string | undefined, string, string][] = [
    [
      json(400, { error: 'invalid command syntax: unterminated single quote' }),
      'comment',
      'invalid command syntax: unterminated single quote',
      'check the command line: quotes must be balanced (see exectl-run(1))',
    ],
    [
      json(401, { error: 'invalid token: expired' }),
      'ls',
      'invalid token: expired',
      'mint a new one: check the clock of this machine and the server',
    ],
    [
      json(422, { error: 'vm "web" is paused' }),
      'ssh web',
      'vm "web" is paused',
      'resume it with `exectl run resume web`',
    ],
    [
      json(403, { error: 'command not allowed: ssh-key list' }),
      undefined,
      'command not allowed: ssh-key list',
      `the token's cmds do not include "ssh-key list": mint one with --cmds "ssh-key list"`,
    ],
    [
      json(404, { error: 'unknown command: frob' }),
      'frob',
      'unknown command: frob',
      'run `exectl run help` to list the commands',
    ],
    [
      json(413, { error: 'request body exceeds 65536 bytes' }),
      'comment',
      'request body exceeds 65536 bytes',
      'a command line is at most 65536 bytes',
    ],
    [
      json(404, { error: 'unknown command: lss' }, { 'x-exec-suggest': 'ls' }),
      'lss',
      'unknown command: lss',
      'did you mean `exectl run ls`?',
    ],
    [
      json(404, { error: 'unknown command: rn' }, { 'x-exec-suggest': 'rm, run' }),
      'rn',
      'unknown command: rn',
      'did you mean `exectl run rm` or `exectl run run`?',
    ],
    // 422s: the hint follows X-Exec-Failure's kind; without one, the command's help.
    [
      json(422, { error: 'unexpected argument "x"' }),
      'comment',
      'unexpected argument "x"',
      'see `exectl run help comment`',
    ],
    [
      json(422, { error: 'bad' }, { 'x-exec-failure': 'frobbed' }),
      'ssh web',
      'bad',
      'see `exectl run help ssh`',
    ],
    [
      json(422, { error: 'vm "web" not found' }, { 'x-exec-failure': 'not-found ls' }),
      'ssh web',
      'vm "web" not found',
      'run `exectl run ls` to see yours',
    ],
    [
      json(422, { error: 'k' }, { 'x-exec-failure': 'not-found ssh-key list' }),
      'ssh-key remove',
      'k',
      'run `exectl run ssh-key list` to see yours',
    ],
    [
      json(422, { error: 'o' }, { 'x-exec-failure': 'not-owner ada@example.com' }),
      'restart',
      'o',
      'ask its owner, ada@example.com',
    ],
    [json(422, { error: 'o' }, { 'x-exec-failure': 'not-owner' }), 'tag', 'o', 'ask its owner'],
    // What goes to a terminal from a header is printable ASCII only.
    [
      json(422, { error: 'o' }, { 'x-exec-failure': 'not-owner \x1b]0;pwned\x07' }),
      'tag',
      'o',
      'ask its owner',
    ],
    [
      json(422, { error: 'n' }, { 'x-exec-failure': 'not-found \x1b[2J' }),
      'tag',
      'n',
      'see `exectl run help tag`',
    ],
    [
      json(429, { error: 'rate limit exceeded' }, { 'retry-after': '7' }),
      'ls',
      'rate limit exceeded',
      'retry after 7s',
    ],
    [
      json(504, { error: 'command timed out after 30s' }),
      'ls',
      'command timed out after 30s',
      "commands stop after 30 s: a session over the VM's own SSH server has no limit (ssh to ssh_dest of `exectl run ls`), or run long jobs in the background (nohup, setsid)",
    ],
    [
      json(500, { error: 'internal error' }, { 'x-request-id': 'req_42' }),
      'ls',
      'internal error',
      'check the server log for request req_42',
    ],
    [json(500, { error: 'internal error' }), 'ls', 'internal error', 'check the server log'],
    [
      json(422, { deleted: ['a'], failed: [{ vm_name: 'b', error: 'vm "b" not found' }] }),
      'rm',
      'vm "b" not found',
      'its result is on stdout',
    ],
    [
      json(422, {
        deleted: [],
        failed: [
          { vm_name: 'b', error: 'vm "b" not found' },
          { vm_name: 'c', error: 'vm "c" not found' },
        ],
      }),
      'rm',
      'vm "b" not found (and 1 more)',
      'its result is on stdout',
    ],
    [
      {
        status: 422,
        headers: { 'content-type': 'application/octet-stream', 'x-exec-exit': '3' },
        body: Buffer.from('boom\n'),
        trailers: {},
      },
      'ssh web',
      'the command exited with 3',
      'its output is above; `exectl ssh` exits with its exit code',
    ],
  ];
  for (const [response, scope, message, hint] of cases) {
    const err = responseError(response, { url: URL, scope });
    assert.deepEqual({ message: err.message, hint: err.hint }, { message, hint }, message);
  }
});

test('responseError: an answer that is not from an exectl server says so', () => {
  const answers: ExecResponse[] = [
    {
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: Buffer.from('<h1>'),
      trailers: {},
    },
    json(404, ['not', 'an', 'object']),
    json(401, { message: 'no error field' }),
    {
      status: 500,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{'),
      trailers: {},
    },
    {
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: Buffer.from('<h1>'),
      trailers: {},
    },
    { status: 301, headers: { location: 'https://x/' }, body: Buffer.alloc(0), trailers: {} },
    {
      status: 422,
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from('no exit code'),
      trailers: {},
    },
  ];
  for (const response of answers) {
    const err = responseError(response, { url: URL, scope: 'ls' });
    assert.equal(err.message, `${URL} answered ${response.status}, not as exectl does`);
    assert.equal(err.hint, 'check that --url points at an exectl server');
    assert.equal(
      err.code,
      response.status >= 400 ? clientCodeForStatus(response.status) : 'unreachable',
    );
  }
});

test('failureKind: error, result or raw output', () => {
  assert.equal(failureKind(json(422, { error: 'x' })), 'error');
  assert.equal(failureKind(json(422, { deleted: [], failed: [] })), 'result');
  assert.equal(failureKind(json(403, { deleted: [] })), undefined);
  const raw = { status: 422, headers: { 'x-exec-exit': '1' }, body: Buffer.alloc(0), trailers: {} };
  const announced = {
    status: 200,
    headers: { trailer: 'X-Exec-Exit' },
    body: Buffer.alloc(0),
    trailers: {},
  };
  assert.equal(failureKind({ ...announced, trailers: { 'x-exec-exit': '2' } }), 'raw');
  assert.equal(failureKind({ ...raw, headers: { 'content-type': 'text/plain' } }), undefined);
  assert.equal(failureKind(raw), 'raw');
});

test('retryAfterSeconds: whole seconds, else 1', () => {
  const cases: [string | undefined, number][] = [
    ['2', 2],
    [' 30 ', 30],
    ['0', 0],
    [undefined, 1],
    ['', 1],
    ['1.5', 1],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 1],
    ['-3', 1],
  ];
  for (const [header, seconds] of cases) {
    const headers: Record<string, string> = header === undefined ? {} : { 'retry-after': header };
    assert.equal(retryAfterSeconds(json(429, {}, headers)), seconds, String(header));
  }
});

test('property: any error status and message gives one ExectlError of that status class', () => {
  fc.assert(
    fc.property(fc.integer({ min: 400, max: 599 }), fc.string(), (status, message) => {
      const err = responseError(json(status, { error: message }), { url: URL, scope: 'ls' });
      assert.equal(err.message, message);
      // The exit code of SPEC §8's table: 1..7 for the statuses it names, 9 for other 5xx.
      const named: Record<number, number> = { 400: 2, 401: 3, 403: 4, 404: 5, 405: 2, 413: 2 };
      Object.assign(named, { 422: 1, 429: 6, 504: 7 });
      assert.equal(err.exitCode, named[status] ?? (status >= 500 ? 9 : 2));
      assert.ok(typeof err.hint === 'string' && err.hint.length > 0);
    }),
  );
});
