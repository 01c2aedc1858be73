// The key that worked per server (SPEC §8), in the cache folder: one entry per server URL,
// credentials never written, 0600, and a file that is not what it should be is no memory.
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  keyMemoryFile,
  rememberedKey,
  rememberKey,
  type RememberedKey,
} from '../../../../src/cli/exec/key-memory.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';

let dir: TempDir;
before(async () => {
  dir = await createTempDir('key-memory');
});
after(() => dir.remove());

const A: RememberedKey = { fingerprint: `SHA256:${'A'.repeat(43)}`, source: 'ssh-agent' };
const B: RememberedKey = {
  fingerprint: `SHA256:${'b/+'.repeat(14)}b`,
  source: { path: '/home/u/.ssh/id_ed25519' },
};

let homes = 0;
function freshEnv(): Record<string, string> {
  homes += 1;
  return { HOME: join(dir.path, `home-${homes}`) };
}

test('remembered per server: scheme, host, port and path; credentials and a trailing / aside', () => {
  const env = freshEnv();
  rememberKey(env, 'http://127.0.0.1:7070', A);
  rememberKey(env, 'https://user:secret@exec.example.com/base/', B);
  assert.deepEqual(rememberedKey(env, 'http://127.0.0.1:7070/'), A);
  assert.deepEqual(rememberedKey(env, 'https://exec.example.com/base'), B);
  assert.equal(rememberedKey(env, 'http://127.0.0.1:7071'), undefined);
  assert.equal(rememberedKey(env, 'http://localhost:7070'), undefined);
});

test('the file: ~/.cache/exectl/keys.json, 0600, a fingerprint and where the key is, no password', async () => {
  const env = freshEnv();
  const previous = process.umask(0o000);
  try {
    rememberKey(env, 'https://user:secret@exec.example.com', B);
  } finally {
    process.umask(previous);
  }
  const file = keyMemoryFile(env);
  assert.equal(file, join(env.HOME!, '.cache', 'exectl', 'keys.json'));
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const text = await readFile(file, 'utf8');
  assert.ok(!text.includes('secret'), text);
  assert.deepEqual(JSON.parse(text), {
    'https://exec.example.com': {
      fingerprint: B.fingerprint,
      source: 'file',
      path: '/home/u/.ssh/id_ed25519',
    },
  });
});

test('forgetting removes the entry; the others stay', () => {
  const env = freshEnv();
  rememberKey(env, 'http://a.example', A);
  rememberKey(env, 'http://b.example', B);
  rememberKey(env, 'http://a.example', undefined);
  assert.equal(rememberedKey(env, 'http://a.example'), undefined);
  assert.deepEqual(rememberedKey(env, 'http://b.example'), B);
});

test('a file that is not what it should be is no memory, never an error', async () => {
  const table: [string, string][] = [
    ['not JSON', '{'],
    ['an array', '[]'],
    ['a bad fingerprint', '{"http://h":{"fingerprint":"MD5:00","source":"ssh-agent"}}'],
    ['an unknown source', `{"http://h":{"fingerprint":"${A.fingerprint}","source":"pkcs11"}}`],
    ['a file without path', `{"http://h":{"fingerprint":"${A.fingerprint}","source":"file"}}`],
  ];
  for (const [what, text] of table) {
    const env = freshEnv();
    await mkdir(join(env.HOME!, '.cache', 'exectl'), { recursive: true });
    await writeFile(keyMemoryFile(env), text);
    assert.equal(rememberedKey(env, 'http://h'), undefined, what);
  }
});

test('an unwritable cache folder: nothing remembered, no error', async () => {
  const env = freshEnv();
  await mkdir(join(env.HOME!, '.cache'), { recursive: true });
  await writeFile(join(env.HOME!, '.cache', 'exectl'), 'a file where the folder should be');
  rememberKey(env, 'http://h', A);
  assert.equal(rememberedKey(env, 'http://h'), undefined);
});

test('XDG_CACHE_HOME, when absolute, holds it', () => {
  const env = { ...freshEnv(), XDG_CACHE_HOME: join(dir.path, 'xdg') };
  assert.equal(keyMemoryFile(env), join(dir.path, 'xdg', 'exectl', 'keys.json'));
});
