// exectl inspect --verify FILE: offline signature checks against .pub, authorized_keys and
// allowed_signers files, through the built CLI.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';

let dir: TempDir;
let signer: GeneratedKey;
let stranger: GeneratedKey;
let token: string;

const cli = (args: readonly string[]) => exectl(args, { home: dir.path });

before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-verify');
  signer = await generateKey(dir.path, 'ed25519', { name: 'signer' });
  stranger = await generateKey(dir.path, 'ecdsa-256', { name: 'stranger' });
  const minted = await cli(['mint', '--key', signer.path, '--exp', '1900000000']);
  assert.equal(minted.code, 0, minted.stderr);
  token = minted.stdout.trim();
});
after(() => dir.remove());

async function trustFile(name: string, lines: readonly string[]): Promise<string> {
  const path = dir.join(name);
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

async function verifiedBy(
  file: string,
  tokenToCheck = token,
): Promise<{ code: number | null; verified: unknown }> {
  const result = await cli(['inspect', '--json', '--verify', file, tokenToCheck]);
  return {
    code: result.code,
    verified: (JSON.parse(result.stdout) as { signature_verified: unknown }).signature_verified,
  };
}

describe('inspect --verify', () => {
  test("with the signer's .pub: verified, exit 0; readable line names the file", async () => {
    assert.deepEqual(await verifiedBy(signer.pubPath), { code: 0, verified: true });
    const text = await cli(['inspect', '--verify', signer.pubPath, token]);
    assert.match(text.stdout, new RegExp(`\\nverified {3}yes, by a key in ${signer.pubPath}\\n$`));
  });

  test('with another key: not verified, exit 1', async () => {
    assert.deepEqual(await verifiedBy(stranger.pubPath), { code: 1, verified: false });
    const text = await cli(['inspect', '--verify', stranger.pubPath, token]);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /\nvalid {6}no \(invalid token: signature not verified\)\n/);
    assert.match(
      text.stdout,
      new RegExp(`\\nverified {3}no: no key in ${stranger.pubPath} signed it for v0@localhost\\n$`),
    );
  });

  test('allowed_signers files, with and without namespace restrictions', async () => {
    const cases: [string, string[], number, boolean][] = [
      ['plain', [`alice@example.com ${signer.publicKeyLine}`], 0, true],
      [
        'several principals and keys',
        [
          `# team`,
          `bob@x ${stranger.publicKeyLine}`,
          '',
          `alice@x,carol@x ${signer.publicKeyLine}`,
        ],
        0,
        true,
      ],
      ['namespace allowed', [`alice@x namespaces="v0@localhost" ${signer.publicKeyLine}`], 0, true],
      ['namespace pattern', [`alice@x namespaces="git,v0@*" ${signer.publicKeyLine}`], 0, true],
      [
        'namespace refused',
        [`alice@x namespaces="v0@example.com" ${signer.publicKeyLine}`],
        1,
        false,
      ],
      [
        'namespace negated',
        [`alice@x namespaces="v0@*,!v0@localhost" ${signer.publicKeyLine}`],
        1,
        false,
      ],
      ['wrong key', [`alice@x ${stranger.publicKeyLine}`], 1, false],
      [
        'a CA key signs certificates, not tokens',
        [`alice@x cert-authority ${signer.publicKeyLine}`, `bob@x ${stranger.publicKeyLine}`],
        1,
        false,
      ],
      [
        'authorized_keys options',
        [`no-pty,command="echo hi there" ${signer.publicKeyLine}`],
        0,
        true,
      ],
    ];
    for (const [name, lines, code, verified] of cases) {
      const file = await trustFile(`allowed-${name.replace(/\W+/g, '-')}`, lines);
      assert.deepEqual(await verifiedBy(file), { code, verified }, name);
    }
  });

  test('an expired token still shows whether its signature is good', async () => {
    const minted = await cli(['mint', '--key', signer.path, '--exp', '1000000000']);
    const expired = minted.stdout.trim();
    assert.deepEqual(await verifiedBy(signer.pubPath, expired), { code: 1, verified: true });
    assert.deepEqual(await verifiedBy(stranger.pubPath, expired), { code: 1, verified: false });
  });

  test('unusable files are one-line usage errors', async () => {
    const missing = dir.join('nope.pub');
    assertOneLineError(
      await cli(['inspect', '--verify', missing, token]),
      2,
      `cannot read --verify file ${missing} (ENOENT) — give a .pub, authorized_keys or allowed_signers file`,
    );
    const empty = await trustFile('empty', ['# nothing here']);
    assertOneLineError(
      await cli(['inspect', '--verify', empty, token]),
      2,
      `--verify file ${empty} holds no public key — give a .pub, authorized_keys or allowed_signers file`,
    );
    const junk = await trustFile('junk', [signer.publicKeyLine, 'hello world']);
    assertOneLineError(
      await cli(['inspect', '--verify', junk, token]),
      2,
      `${junk}:2: no SSH public key on this line — each line needs "type base64", e.g. "ssh-ed25519 AAAA..."`,
    );
  });

  test('a svc1 token cannot be verified offline', async () => {
    assertOneLineError(
      await cli(['inspect', '--verify', signer.pubPath, 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYA']),
      2,
      '--verify cannot check a svc1 token: it is opaque — only the server that issued it can check it; inspect the svc0 it was made from',
    );
  });
});
