import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { logSafeMessage } from '../../../../src/service/rules/log-safe.js';

const CASES: [message: string, logged: string][] = [
  ['unknown flag "--frob"', 'unknown flag "--frob"'],
  ['vm "web" not found', 'vm "web" not found'],
  ['unknown command: svc0.eyJleHAiOjF9.U1NIU0lH', 'unknown command: <token>'],
  ['unknown command: exe1.ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'unknown command: <token>'],
  ['unknown command: -----BEGIN OPENSSH PRIVATE KEY----- b3Blbn', 'unknown command: <private key>'],
  ['unknown command: q8Xf0bZ7LrT2vN9kWc4Ys1HdE6uJpA3mGxR5', 'unknown command: <secret>'],
  // Long but not random: kept, so the operator can still read it.
  [
    'invalid vm name "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"',
    'invalid vm name "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"',
  ],
  ['x'.repeat(400), `${'x'.repeat(300)}...`],
];

test('logSafeMessage keeps a message but its tokens, keys and secrets', () => {
  for (const [message, logged] of CASES) assert.equal(logSafeMessage(message), logged, message);
});

test('logSafeMessage: a token anywhere in any message never reaches the log', () => {
  const b64url = fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
    minLength: 8,
    maxLength: 80,
  });
  fc.assert(
    fc.property(
      fc.string(),
      fc.constantFrom('svc0.', 'svc1.', 'exe0.', 'exe1.'),
      b64url,
      b64url,
      fc.string(),
      (before, prefix, payload, sig, after) => {
        const token = `${prefix}${payload}.${sig}`;
        const logged = logSafeMessage(`${before} ${token} ${after}`);
        assert.ok(!logged.includes(`${payload}.${sig}`), logged);
      },
    ),
  );
});
