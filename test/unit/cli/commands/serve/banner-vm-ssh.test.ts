// exectl serve's banner says, once, how VMs are reached over SSH: at addresses of their own (a
// root server), or as vm+<name>@host only, so an ordinary user's server says what it lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderBanner, type BannerFacts } from '../../../../../src/cli/commands/serve/banner.js';
import { PLAIN_STYLE } from '../../../../../src/cli/output.js';

const FACTS: BannerFacts = {
  http: 'http://127.0.0.1:7070',
  ssh: { host: '127.0.0.1', port: 7022 },
  sshHostKey: 'SHA256:abc',
  vmSshAddresses: true,
  reflection: 'http://127.0.0.1:7071',
  smtp: null,
  dataDir: '/data',
  dataIsDefault: true,
  ephemeral: false,
  runtime: { kind: 'bwrap', warnings: [] },
  domain: 'localhost',
  vmDomain: 'localhost',
  compat: null,
  owner: { email: 'o@example.com', created: false, keys: [] },
  accounts: 1,
  rateLimit: { text: '10/s', from: 'the default' },
  client: 'exectl',
  dashboardLink: null,
};

const rowAfterSsh = (facts: BannerFacts) => {
  const lines = renderBanner(facts, PLAIN_STYLE).split('\n');
  return lines[lines.findIndex((l) => l.startsWith('  SSH ')) + 1]!.trim();
};

test('a root server: each VM at an address of its own', () => {
  assert.equal(
    rowAfterSsh(FACTS),
    'each VM at an address of its own, any user name (ls: ssh_host); ssh-config writes the blocks',
  );
});

test('an ordinary user’s server says VMs are vm+<name>@host only, and why', () => {
  assert.match(
    rowAfterSsh({ ...FACTS, vmSshAddresses: false }),
    /^VMs as vm\+<name>@host only: no address per VM \(the server is not root/,
  );
});

test('with SSH off, nothing is said of it', () => {
  const text = renderBanner({ ...FACTS, ssh: null, vmSshAddresses: false }, PLAIN_STYLE);
  assert.doesNotMatch(text, /vm\+<name>|address of its own/);
});
