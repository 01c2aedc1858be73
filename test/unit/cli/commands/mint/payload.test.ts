import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ExectlError } from '../../../../../src/errors.js';
import {
  buildMintPayload,
  type PermissionFlags,
} from '../../../../../src/cli/commands/mint/payload.js';
import { parsePermissions } from '../../../../../src/token/permissions.js';
import { BranchShare } from '../../../../helpers/branch-share.js';

const NOW = 1_700_000_000;
const NEVER_WARNING = 'the token never expires (--exp never): it works until its key is removed';

test('buildMintPayload: table', () => {
  const cases: [PermissionFlags, string, string[]][] = [
    [{}, `{"exp":${NOW + 3600}}`, []],
    [{ exp: '30s' }, `{"exp":${NOW + 30}}`, []],
    [{ exp: 'never' }, '{}', [NEVER_WARNING]],
    [{ exp: '1900000000', nbf: '1800000000' }, '{"exp":1900000000,"nbf":1800000000}', []],
    // A duration in --exp counts from --nbf: valid from in one hour until in two.
    [{ nbf: '1h', exp: '1h' }, `{"exp":${NOW + 7200},"nbf":${NOW + 3600}}`, []],
    [{ nbf: '1h' }, `{"exp":${NOW + 7200},"nbf":${NOW + 3600}}`, []],
    [{ nbf: '1h', exp: String(NOW + 7000) }, `{"exp":${NOW + 7000},"nbf":${NOW + 3600}}`, []],
    [
      { cmds: ['ssh-key'] },
      `{"exp":${NOW + 3600},"cmds":["ssh-key"]}`,
      [
        'cmds lists "ssh-key" without any of its subcommands, and a parent grants none (write e.g. "ssh-key list")',
      ],
    ],
    [
      { ctx: '{"password":"hunter2"}' },
      `{"exp":${NOW + 3600},"ctx":{"password":"hunter2"}}`,
      ['ctx may hold a secret (ctx.password); ctx is public: anyone with the token can read it'],
    ],
    [{ exp: 'never', nbf: '15m' }, `{"nbf":${NOW + 900}}`, [NEVER_WARNING]],
    [
      { exp: String(NOW) },
      `{"exp":${NOW}}`,
      ['--exp is in the past: the token is already expired'],
    ],
    [
      { cmds: [' whoami ,ls', 'ssh-key list'] },
      `{"exp":${NOW + 3600},"cmds":["whoami","ls","ssh-key list"]}`,
      [],
    ],
    [
      { cmds: ['lss,ssh web,frobnicate'] },
      `{"exp":${NOW + 3600},"cmds":["lss","ssh web","frobnicate"]}`,
      [
        `--cmds "lss" is no command of exectl's: a token with it does not allow it — did you mean "ls"?`,
        `--cmds "frobnicate" is no command of exectl's: a token with it does not allow it`,
      ],
    ],
    [{ ctx: ' {"a": [1, "x"]} ' }, `{"exp":${NOW + 3600},"ctx":{"a": [1, "x"]}}`, []],
    [{ ctx: '"just a string"' }, `{"exp":${NOW + 3600},"ctx":"just a string"}`, []],
    [{ ctx: 'null' }, `{"exp":${NOW + 3600},"ctx":null}`, []],
  ];
  for (const [flags, payload, warnings] of cases) {
    assert.deepEqual(buildMintPayload(flags, NOW), { payload, warnings }, JSON.stringify(flags));
  }
});

test('buildMintPayload: usage errors', () => {
  const cases: [PermissionFlags, string][] = [
    [
      { exp: String(NOW + 3600), nbf: '2h' },
      '--nbf is after --exp: the token would never be valid',
    ],
    [{ cmds: ['a,'] }, '--cmds "a," has an empty entry'],
    [{ cmds: [' '] }, '--cmds " " has an empty entry'],
    [{ ctx: '' }, '--ctx is not one valid JSON value'],
    [{ ctx: '{"a":1}x' }, '--ctx is not one valid JSON value'],
    [{ ctx: '1,"nbf":946684800' }, '--ctx is not one valid JSON value'],
    [{ ctx: '{"a":\r1}' }, '--ctx must be on one line: it contains a line break'],
    [
      { ctx: '{"a":{"b":1,"b":2}}' },
      '--ctx is not acceptable: duplicate key "b" in permissions JSON',
    ],
    [{ exp: '946684799' }, 'the permissions would be rejected: exp out of range'],
    [{ exp: 'never', nbf: '4102444801' }, 'the permissions would be rejected: nbf out of range'],
  ];
  for (const [flags, message] of cases) {
    assert.throws(
      () => buildMintPayload(flags, NOW),
      { code: 'usage', message },
      JSON.stringify(flags),
    );
  }
});

/** Runs `build`; a usage error is an accepted outcome, anything else thrown is not. */
function payloadOrUsage(build: () => string): string | undefined {
  try {
    return build();
  } catch (err) {
    assert.ok(err instanceof ExectlError && err.code === 'usage', String(err));
    return undefined;
  }
}

test('any --cmds values: a usage error, or exactly the trimmed comma-separated entries', (t) => {
  const share = new BranchShare();
  fc.assert(
    fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 4 }), (cmds) => {
      const payload = payloadOrUsage(() => buildMintPayload({ exp: 'never', cmds }, NOW).payload);
      if (payload === undefined) return share.refused();
      share.accepted();
      const expected = cmds.flatMap((c) => c.split(',').map((e) => e.trim()));
      assert.deepEqual(parsePermissions(Buffer.from(payload)).cmds, expected);
    }),
  );
  share.assertFloor((message) => t.diagnostic(message));
});

test('any --ctx text: a usage error, or a payload whose ctx is exactly that text and nothing else', (t) => {
  const share = new BranchShare();
  // Any JSON must be accepted: it has the weight to reach the accepted branch in most cases.
  const ctxText = fc.oneof(
    { weight: 1, arbitrary: fc.string() },
    { weight: 3, arbitrary: fc.json() },
    { weight: 1, arbitrary: fc.json().map((j) => `${j},"nbf":946684800`) },
  );
  fc.assert(
    fc.property(ctxText, (ctx) => {
      const payload = payloadOrUsage(() => buildMintPayload({ exp: 'never', ctx }, NOW).payload);
      if (payload === undefined) return share.refused();
      share.accepted();
      assert.deepEqual(parsePermissions(Buffer.from(payload)), { ctxRaw: ctx.trim() });
    }),
  );
  share.assertFloor((message) => t.diagnostic(message));
});
