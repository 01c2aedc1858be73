// exectl ssh-config --write: its block goes between the markers of the user's ssh config, once,
// and every other line stays byte for byte; its known-hosts lines replace only their own hosts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { withBlock, withKnownHosts } from '../../../../../src/cli/commands/ssh-config/merge.js';

const BLOCK =
  '# exectl ssh-config begin\nHost web.exe.xyz\n    Port 7022\n# exectl ssh-config end\n';
const NEWER =
  '# exectl ssh-config begin\nHost api.exe.xyz\n    Port 7022\n# exectl ssh-config end\n';

const CASES: [string, string, string][] = [
  ['an empty file', '', BLOCK],
  ['a file without the markers', 'Host gh\n  User git\n', `Host gh\n  User git\n\n${BLOCK}`],
  ['a file without a final newline', 'Host gh', `Host gh\n\n${BLOCK}`],
  [
    'a file with an older block in the middle',
    `Host a\n\n${BLOCK}Host b\n  Port 2\n`,
    `Host a\n\n${NEWER}Host b\n  Port 2\n`,
  ],
  [
    'a block at the very end without a newline',
    `Host a\n${BLOCK.slice(0, -1)}`,
    `Host a\n${NEWER}`,
  ],
];
for (const [what, before, after] of CASES) {
  test(`withBlock: ${what}`, () => {
    const block = before.includes('begin') ? NEWER : BLOCK;
    assert.equal(withBlock(before, block), after);
    assert.equal(withBlock(after, block), after, 'idempotent');
  });
}

test('withBlock: markers that are not one pair are refused, not guessed', () => {
  for (const broken of [
    '# exectl ssh-config begin\nHost a\n',
    'Host a\n# exectl ssh-config end\n',
    '# exectl ssh-config end\n# exectl ssh-config begin\n',
    `${BLOCK}${BLOCK}`,
  ]) {
    assert.throws(() => withBlock(broken, BLOCK), /are not one pair/);
  }
});

test('property: every line outside the markers is kept, in order; a second write changes nothing', () => {
  const line = fc.string().filter((s) => !s.includes('\n') && !s.includes('exectl ssh-config'));
  fc.assert(
    fc.property(fc.array(line), fc.array(line), (head, tail) => {
      const top = head.map((l) => `${l}\n`).join('');
      const config = `${top}${BLOCK}${tail.map((l) => `${l}\n`).join('')}`;
      const once = withBlock(config, NEWER);
      assert.equal(once, `${top}${NEWER}${tail.map((l) => `${l}\n`).join('')}`);
      assert.equal(withBlock(once, NEWER), once);
    }),
  );
});

test('withKnownHosts: its hosts replaced, other hosts and servers kept', () => {
  const before =
    '[127.77.0.1]:7022 ssh-ed25519 OLD\n[127.77.0.1]:9022 ssh-ed25519 OTHER\ngithub.com ssh-ed25519 GH\n';
  const entries = new Map([
    ['[127.77.0.1]:7022', 'ssh-ed25519 NEW'],
    ['[127.77.0.2]:7022', 'ssh-ed25519 NEW'],
  ]);
  assert.equal(
    withKnownHosts(before, entries),
    '[127.77.0.1]:9022 ssh-ed25519 OTHER\ngithub.com ssh-ed25519 GH\n' +
      '[127.77.0.1]:7022 ssh-ed25519 NEW\n[127.77.0.2]:7022 ssh-ed25519 NEW\n',
  );
});
