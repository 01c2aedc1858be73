import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { ExectlError } from '../../../../../src/errors.js';
import { readTrustedKeys } from '../../../../../src/cli/commands/inspect/verify-keys.js';
import { keyFinderFor, matchesPatternList } from '../../../../../src/inspection/trusted-keys.js';
import { generateKey, type GeneratedKey } from '../../../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

let dir: TempDir;
let a: GeneratedKey;
let b: GeneratedKey;
before(async () => {
  dir = await createTempDir('unit-verify-keys');
  a = await generateKey(dir.path, 'ed25519', { name: 'a' });
  b = await generateKey(dir.path, 'ecdsa-256', { name: 'b' });
});
after(() => dir.remove());

async function keysIn(
  text: string,
): Promise<{ comment: string; namespaces: string | undefined }[]> {
  const path = dir.join('trusted');
  await writeFile(path, text);
  return readTrustedKeys(path).map((t) => ({ comment: t.key.comment, namespaces: t.namespaces }));
}

test('readTrustedKeys: the line formats it understands', async () => {
  const cases: [string, string, { comment: string; namespaces: string | undefined }[]][] = [
    [
      'a .pub file',
      `${a.publicKeyLine}\n`,
      [{ comment: 'ed25519@exectl-test', namespaces: undefined }],
    ],
    [
      'CRLF, comments, blank lines',
      `# keys\r\n\r\n${a.publicKeyLine}\r\n${b.publicKeyLine}\r\n`,
      [
        { comment: 'ed25519@exectl-test', namespaces: undefined },
        { comment: 'ecdsa-256@exectl-test', namespaces: undefined },
      ],
    ],
    [
      'allowed_signers',
      `alice@x ${a.publicKeyLine}`,
      [{ comment: 'ed25519@exectl-test', namespaces: undefined }],
    ],
    [
      'allowed_signers with namespaces',
      `alice@x,bob@y namespaces="v0@*,git" ${a.publicKeyLine}`,
      [{ comment: 'ed25519@exectl-test', namespaces: 'v0@*,git' }],
    ],
    [
      'a principal that starts like a key type',
      `ssh-user@x ${a.publicKeyLine}`,
      [{ comment: 'ed25519@exectl-test', namespaces: undefined }],
    ],
    [
      'quoted options with spaces and commas',
      `command="echo a, b",namespaces="v0@x" ${a.publicKeyLine}`,
      [{ comment: 'ed25519@exectl-test', namespaces: 'v0@x' }],
    ],
    [
      'cert-authority lines are skipped',
      `*@x cert-authority ${b.publicKeyLine}\n${a.publicKeyLine}`,
      [{ comment: 'ed25519@exectl-test', namespaces: undefined }],
    ],
  ];
  for (const [name, text, expected] of cases) assert.deepEqual(await keysIn(text), expected, name);
});

test('readTrustedKeys: what it refuses, naming file and line', async () => {
  const path = dir.join('trusted');
  const cases: [string, string][] = [
    [`${a.publicKeyLine}\nnot a key`, `${path}:2: no SSH public key on this line`],
    ['# only a comment\n', `--verify file ${path} holds no public key`],
    [`x@y cert-authority ${a.publicKeyLine}`, `--verify file ${path} holds no public key`],
  ];
  for (const [text, message] of cases) {
    await writeFile(path, text);
    assert.throws(() => readTrustedKeys(path), { code: 'usage', message }, text);
  }
  await writeFile(path, 'ssh-ed25519 AAAA\n');
  assert.throws(
    () => readTrustedKeys(path),
    (err: unknown) =>
      err instanceof ExectlError && err.code === 'usage' && err.message.startsWith(`${path}:1: `),
  );
});

test('keyFinderFor: only keys allowed for the namespace are found', async () => {
  const path = dir.join('finder');
  await writeFile(
    path,
    `x namespaces="v0@localhost" ${a.publicKeyLine}\ny namespaces="git" ${b.publicKeyLine}\n`,
  );
  const trusted = readTrustedKeys(path);
  const [ka, kb] = trusted.map((t) => t.key);
  const find = keyFinderFor(trusted, 'v0@localhost');
  assert.equal(find(ka!.fingerprint), ka);
  assert.equal(find(kb!.fingerprint), undefined);
  assert.equal(keyFinderFor(trusted, 'git')(kb!.fingerprint), kb);
});

test('matchesPatternList: ssh-keygen pattern lists', () => {
  const cases: [string, string, boolean][] = [
    ['v0@localhost', 'v0@localhost', true],
    ['v0@localhost', 'v0@*', true],
    ['v0@localhost', 'v0@?ocalhost', true],
    ['v0@localhost', 'git,v0@localhost', true],
    ['v0@localhost', 'v0@*,!v0@localhost', false],
    ['v0@localhost', '!v0@localhost,v0@*', false],
    ['v0@localhost', '!v0@other', false],
    ['v0@localhost', 'v0@local', false],
    ['v0@localhost', '', false],
    ['a+b', 'a+b', true],
    ['aab', 'a+b', false],
    ['v0@web.localhost', 'v0@*.localhost', true],
    ['v0@webXlocalhost', 'v0@web.localhost', false],
  ];
  for (const [value, list, expected] of cases) {
    assert.equal(matchesPatternList(value, list), expected, `${value} in ${list}`);
  }
});
