// Which host folders a VM's sandbox shows, and the one place it may write to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bwrapArgs,
  machineBwrapArgs,
  systemFolderArgs,
  type RootEntry,
} from '../../../../../src/service/vm/sandbox/bwrap-args.js';

const dir = (name: string): RootEntry => ({ name, isDirectory: true });
const link = (name: string, symlinkTarget: string): RootEntry => ({
  name,
  symlinkTarget,
  isDirectory: false,
});

// Everything else a host's / may hold: none of it may reach a VM.
const PRIVATE = ['home', 'root', 'tmp', 'var', 'srv', 'opt', 'mnt', 'media', 'work', 'boot', 'run'];

test('system folders: bound read-only when real, recreated when symlinks; nothing else', () => {
  const cases: { host: RootEntry[]; args: string[] }[] = [
    {
      // Debian 12 / merged /usr.
      host: [
        link('bin', 'usr/bin'),
        link('lib', 'usr/lib'),
        link('lib64', 'usr/lib64'),
        link('sbin', 'usr/sbin'),
        dir('usr'),
        dir('etc'),
        ...PRIVATE.map(dir),
      ],
      args: [
        ...['--symlink', 'usr/bin', '/bin'],
        ...['--ro-bind', '/etc', '/etc'],
        ...['--symlink', 'usr/lib', '/lib'],
        ...['--symlink', 'usr/lib64', '/lib64'],
        ...['--symlink', 'usr/sbin', '/sbin'],
        ...['--ro-bind', '/usr', '/usr'],
      ],
    },
    {
      // A split /usr with multilib folders.
      host: [
        dir('bin'),
        dir('sbin'),
        dir('lib'),
        dir('lib32'),
        dir('libx32'),
        dir('usr'),
        dir('etc'),
      ],
      args: [
        ...['--ro-bind', '/bin', '/bin'],
        ...['--ro-bind', '/etc', '/etc'],
        ...['--ro-bind', '/lib', '/lib'],
        ...['--ro-bind', '/lib32', '/lib32'],
        ...['--ro-bind', '/libx32', '/libx32'],
        ...['--ro-bind', '/sbin', '/sbin'],
        ...['--ro-bind', '/usr', '/usr'],
      ],
    },
    {
      // Absolute symlinks, and a stray file named like a library folder.
      host: [link('bin', '/usr/bin'), { name: 'lib.tar', isDirectory: false }, dir('usr')],
      args: [...['--symlink', '/usr/bin', '/bin'], ...['--ro-bind', '/usr', '/usr']],
    },
    { host: PRIVATE.map(dir), args: [] },
  ];
  for (const { host, args } of cases) assert.deepEqual(systemFolderArgs(host), args);
});

test('a user-mode sandbox writes only to the disk at /root; /tmp is its own tmpfs; net is shared', () => {
  const args = bwrapArgs('web-1', '/data/vms/7', ['--ro-bind', '/usr', '/usr']);
  const writable = args.flatMap((a, i) => (a === '--bind' ? [[args[i + 1], args[i + 2]]] : []));
  assert.deepEqual(writable, [['/data/vms/7', '/root']]);
  assert.equal(args.filter((a) => a === '/data/vms/7').length, 1);
  const tmpfs = args.flatMap((a, i) => (a === '--tmpfs' ? [args[i + 1]] : []));
  assert.deepEqual(tmpfs, ['/tmp']);
  assert.deepEqual(args.slice(args.indexOf('--hostname'), args.indexOf('--hostname') + 2), [
    '--hostname',
    'web-1',
  ]);
  for (const ns of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts']) {
    assert.ok(args.includes(ns), ns);
  }
  assert.ok(!args.some((a) => a.includes('net')), 'no network namespace of its own');
  // Everything else of the sandbox is read-only, and the server's exit ends it.
  assert.deepEqual(args.slice(args.indexOf('--remount-ro'), args.indexOf('--remount-ro') + 2), [
    '--remount-ro',
    '/',
  ]);
  assert.ok(args.includes('--die-with-parent'));
});

test('a machine sandbox: its own root at /, fresh /tmp and /run, the extra mounts on top', () => {
  const extra = ['--ro-bind', '/usr/bin/node', '/opt/exectl/node'];
  const args = machineBwrapArgs('web-1', '/run/x/vm-1/root', extra);
  const binds = args.flatMap((a, i) => (a === '--bind' ? [[args[i + 1], args[i + 2]]] : []));
  assert.deepEqual(binds, [['/run/x/vm-1/root', '/']]);
  const tmpfs = args.flatMap((a, i) => (a === '--tmpfs' ? [args[i + 1]] : []));
  assert.deepEqual(tmpfs, ['/tmp', '/run']);
  // bwrap already runs as root of the VM's own user namespace: no second one, no read-only root.
  assert.ok(!args.includes('--unshare-user'));
  assert.ok(!args.includes('--remount-ro'));
  // Mounts apply in order: the extras after the root, so they land inside it.
  assert.ok(args.indexOf('/opt/exectl/node') > args.indexOf('/run/x/vm-1/root'));
  assert.ok(args.includes('--die-with-parent'));
});
