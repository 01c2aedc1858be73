// The SSH front end under `--compat exe.dev` (SPEC §12): it shares the dispatcher, so the real
// service's `exe0-to-exe1` answers there too, with an `exe1.` token; without the flag it is an
// unknown command. Real OpenSSH client, real ssh-keygen signatures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { dialectsFor } from '../../../src/dialects.js';
import { mintWithShellRecipe } from '../../helpers/keys.js';
import { startSshHarness, type SshHarness } from './harness.js';

describe('SSH front end with --compat exe.dev', () => {
  let h: SshHarness;
  before(async () => {
    h = await startSshHarness({
      registry: buildRegistry(dialectsFor('exe.dev')),
      config: { compat: 'exe.dev', domain: 'exe.dev', vmDomain: 'exe.xyz' },
    });
  });
  after(() => h?.close());

  test('exe0-to-exe1 trades an exe0. token for an exe1.; svc0-to-svc1 gives the same handle', async () => {
    const svc0 = await mintWithShellRecipe(h.owner.key, '{"cmds":["whoami"]}', 'v0@exe.dev');
    const exe0 = `exe0.${svc0.slice(5)}`;
    const byAlias = await h.ssh(`exe0-to-exe1 --json ${exe0}`);
    assert.equal(byAlias.code, 0, byAlias.stderr);
    const { token } = JSON.parse(byAlias.stdout) as { token: string };
    assert.match(token, /^exe1\.[A-Z2-7]{26}$/);
    const byOwnName = await h.ssh(`svc0-to-svc1 ${exe0}`);
    assert.equal(byOwnName.code, 0, byOwnName.stderr);
    assert.equal(byOwnName.stdout.trim(), `svc1.${token.slice(5)}`);
  });

  test('help lists exe0-to-exe1 with the usage of its own name', async () => {
    const r = await h.ssh('exe0-to-exe1 --help --json');
    assert.equal(r.code, 0, r.stderr);
    const help = JSON.parse(r.stdout) as { name: string; usage: string; description: string };
    assert.match(help.description, / \(the exe\.dev name of svc0-to-svc1\)$/);
    assert.deepEqual(
      [help.name, help.usage],
      ['exe0-to-exe1', 'exe0-to-exe1 [--vm V] <svc0-token>'],
    );
  });
});

describe('SSH front end without --compat', () => {
  let h: SshHarness;
  before(async () => {
    h = await startSshHarness({ registry: buildRegistry() });
  });
  after(() => h?.close());

  test('exe0-to-exe1 is an unknown command, and an exe0. argument is no svc0', async () => {
    const unknown = await h.ssh('exe0-to-exe1 x');
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /unknown command: exe0-to-exe1/);
    const svc0 = await mintWithShellRecipe(h.owner.key, '{"cmds":["whoami"]}', 'v0@localhost');
    const refused = await h.ssh(`svc0-to-svc1 exe0.${svc0.slice(5)}`);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /invalid svc0 token: malformed/);
  });
});
