// exectl ssh-config's Host blocks: every value comes from the server and lands in the user's ssh
// config, so only plain values pass, and whatever the server sends, the output is the marker
// lines around Host blocks of the known directives and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  knownHostName,
  renderBlocks,
  vmHost,
  type ListedVm,
  type VmHost,
} from '../../../../../src/cli/commands/ssh-config/blocks.js';

const WEB: ListedVm = {
  vm_name: 'web',
  https_url: 'https://web.exe.xyz',
  ssh_host: '127.77.0.1',
  ssh_port: 7022,
  ssh_user: 'root',
};
const FILES = { knownHosts: '/home/u/.config/exectl/ssh_known_hosts', identityFile: undefined };

test('a VM of its own address: Host <vm>.<vm-domain> with its address, port, user and the pin', () => {
  const host = vmHost(WEB) as VmHost;
  assert.deepEqual(host, { alias: 'web.exe.xyz', host: '127.77.0.1', port: 7022, user: 'root' });
  assert.equal(
    renderBlocks([host], { ...FILES, identityFile: '/home/u/my keys/id_ed25519' }),
    [
      '# exectl ssh-config begin',
      '# made by `exectl ssh-config`; run it again after new, rm or cp',
      'Host web.exe.xyz',
      '    HostName 127.77.0.1',
      '    Port 7022',
      '    User root',
      '    UserKnownHostsFile /home/u/.config/exectl/ssh_known_hosts',
      '    StrictHostKeyChecking yes',
      '    IdentityFile "/home/u/my keys/id_ed25519"',
      '    IdentitiesOnly yes',
      '# exectl ssh-config end',
      '',
    ].join('\n'),
  );
});

test('an ordinary user’s server: the block reaches vm+<name> on the shared listener', () => {
  const host = vmHost({
    ...WEB,
    https_url: 'http://web.localhost:7070',
    ssh_host: 'localhost',
    ssh_user: 'vm+web',
  });
  assert.deepEqual(host, { alias: 'web.localhost', host: 'localhost', port: 7022, user: 'vm+web' });
});

const HOSTILE: [string, Partial<Record<keyof ListedVm, unknown>>, string][] = [
  [
    'newline in the host',
    { ssh_host: '127.0.0.1\n    ProxyCommand sh -c id' },
    'ssh_host is not a host name or address',
  ],
  ['space in the host', { ssh_host: 'a b' }, 'ssh_host is not a host name or address'],
  ['a % token in the host', { ssh_host: '%h' }, 'ssh_host is not a host name or address'],
  ['a user with a space', { ssh_user: 'root ProxyCommand=x' }, 'ssh_user is not a plain user name'],
  ['a user with a quote', { ssh_user: 'ro"ot' }, 'ssh_user is not a plain user name'],
  ['port 0', { ssh_port: 0 }, 'ssh_port is not a port'],
  ['port as text', { ssh_port: '22' }, 'ssh_port is not a port'],
  ['port 65536', { ssh_port: 65536 }, 'ssh_port is not a port'],
  ['a URL of another host', { https_url: 'https://evil.example/' }, 'its URL is not <vm>.<domain>'],
  ['a URL with a * domain', { https_url: 'https://web.*/' }, 'its URL is not <vm>.<domain>'],
  ['no URL', { https_url: null }, 'its URL is not <vm>.<domain>'],
];
for (const [what, change, reason] of HOSTILE) {
  test(`left out: ${what}`, () => {
    assert.deepEqual(vmHost({ ...WEB, ...change }), { skipped: `vm "web": ${reason}` });
  });
}

test('left out: a name that is not a DNS label, and a server with SSH off', () => {
  assert.deepEqual(vmHost({ ...WEB, vm_name: 'Web\nHost *' }), {
    skipped: 'a VM name that is not a DNS label',
  });
  assert.deepEqual(vmHost({ ...WEB, ssh_host: null, ssh_port: null, ssh_user: null }), {
    skipped: 'vm "web": the server\'s SSH listener is off',
  });
});

test('a path that cannot be a plain ssh_config value is refused', () => {
  for (const knownHosts of ['relative/known', '/a"b', '/a\nHost *', '/home/%u/k']) {
    assert.throws(
      () => renderBlocks([], { knownHosts, identityFile: undefined }),
      /cannot be named/,
    );
  }
});

test('known_hosts names: bare on port 22, bracketed with any other port', () => {
  assert.equal(knownHostName('127.77.0.1', 22), '127.77.0.1');
  assert.equal(knownHostName('127.77.0.1', 7022), '[127.77.0.1]:7022');
});

test('property: whatever the server answers, the output has only the known directives', () => {
  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.constant(null),
    fc.constantFrom('web', 'root', '127.77.0.1', 'https://web.exe.xyz'),
  );
  const allowed =
    /^(# exectl ssh-config (begin|end)|# made by .*|Host [a-z0-9.-]+| {4}(HostName [A-Za-z0-9.:-]+|Port \d+|User [A-Za-z0-9._+-]+|UserKnownHostsFile \/\S+|StrictHostKeyChecking yes))$/;
  const vm = fc.record({
    vm_name: value,
    https_url: value,
    ssh_host: value,
    ssh_port: value,
    ssh_user: value,
  });
  fc.assert(
    fc.property(fc.array(vm), (vms) => {
      const hosts = vms.map(vmHost).flatMap((h) => ('skipped' in h ? [] : [h]));
      const text = renderBlocks(hosts, FILES);
      for (const line of text.slice(0, -1).split('\n')) assert.match(line, allowed);
    }),
  );
});
