// `exectl profile add|list|use|remove` in-process: the config file it writes and what it says.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../../../helpers/cli-run.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

let dir: TempDir;
let env: Record<string, string>;
let config: string;
before(async () => {
  dir = await createTempDir();
  env = { XDG_CONFIG_HOME: dir.path, XDG_CACHE_HOME: dir.path };
  config = join(dir.path, 'exectl', 'config.json');
});
after(() => dir.remove());

test('add, list, use and remove a profile: the file, its mode, and each answer', async () => {
  const added = await runCli(['profile', 'add', 'two', '--url', 'http://127.0.0.1:8070'], env);
  assert.deepEqual(added, {
    code: 0,
    stdout: `added profile "two" to ${config}\nuse it with --profile two, or by default: exectl profile use two\n`,
    stderr: '',
  });
  assert.equal(statSync(config).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')).profiles, {
    two: { url: 'http://127.0.0.1:8070' },
  });

  assert.equal(
    (await runCli(['profile', 'list'], env)).stdout,
    '   NAME  URL                    KEY  NAMESPACE\n   two   http://127.0.0.1:8070  -    -\n',
  );
  assert.equal(
    (await runCli(['profile', 'use', 'two'], env)).stdout,
    'default profile: "two" (http://127.0.0.1:8070)\n',
  );
  assert.equal(
    (await runCli(['profile', 'list'], env)).stdout,
    '   NAME  URL                    KEY  NAMESPACE\n*  two   http://127.0.0.1:8070  -    -\n',
  );
  assert.equal(
    (await runCli(['profile', 'remove', 'two'], env)).stdout,
    `removed profile "two" from ${config}; no profile is the default now\n`,
  );
  assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')).profiles, {});
});

test('an unknown profile is a usage error naming the file and the way to add it', async () => {
  assert.deepEqual(await runCli(['profile', 'use', 'nope'], env), {
    code: 2,
    stdout: '',
    stderr: `exectl: profile "nope" not found in ${config} — see exectl profile list, or add it with exectl profile add nope --url URL\n`,
  });
});
