// `exectl serve`'s settings in-process: flag over EXECTL_<NAME> over default for each value, and
// one usage error, naming the flag or variable it came from, for each bad one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  resolveServeSettings,
  type ServeFlags,
} from '../../../../../src/cli/commands/serve/options.js';
import { ExectlError } from '../../../../../src/errors.js';

const ENV = { XDG_DATA_HOME: '/xdg' };

/** The settings a case looks at, in a shape it can compare whole. */
function shown(flags: ServeFlags, env: Record<string, string> = {}) {
  const s = resolveServeSettings(flags, { ...ENV, ...env });
  return {
    listen: `${s.listen.host}:${s.listen.port}`,
    ssh: s.sshListen === null ? 'off' : `${s.sshListen.host}:${s.sshListen.port}`,
    domains: `${s.domain} ${s.vmDomain}`,
    compat: s.compat,
    rate: `${s.rateLimitShown.text} (${s.rateLimitShown.from})`,
    data: s.data.kind === 'dir' ? s.data.path : 'ephemeral',
  };
}

const DEFAULT = {
  listen: '127.0.0.1:7070',
  ssh: '127.0.0.1:7022',
  domains: 'localhost localhost',
  compat: null as string | null,
  rate: '60 requests per 60s for each key (the default)',
  data: '/xdg/exectl',
};

const ACCEPTED: [string, ServeFlags, Record<string, string>, Partial<typeof DEFAULT>][] = [
  ['nothing given: the defaults', {}, {}, {}],
  [
    'flags',
    { listen: '127.0.0.1:9000', sshListen: 'off' },
    {},
    { listen: '127.0.0.1:9000', ssh: 'off' },
  ],
  [
    'variables when no flag',
    {},
    { EXECTL_LISTEN: '0.0.0.0:8080', EXECTL_RATE_LIMIT: '0' },
    { listen: '0.0.0.0:8080', rate: 'off (EXECTL_RATE_LIMIT)' },
  ],
  [
    'a flag over its variable',
    { rateLimit: '10/1s' },
    { EXECTL_RATE_LIMIT: '0' },
    { rate: '10 requests per 1s for each key (--rate-limit)' },
  ],
  [
    '--compat exe.dev: its domains',
    { compat: 'exe.dev' },
    {},
    { domains: 'exe.dev exe.xyz', compat: 'exe.dev' },
  ],
  [
    '--vm-domain over the compat default',
    { compat: 'exe.dev', vmDomain: 'vms.example' },
    {},
    { domains: 'exe.dev vms.example', compat: 'exe.dev' },
  ],
  ['--ephemeral', { ephemeral: true }, {}, { data: 'ephemeral' }],
];

for (const [name, flags, env, changed] of ACCEPTED) {
  test(`serve settings: ${name}`, () => {
    assert.deepEqual(shown(flags, env), { ...DEFAULT, ...changed });
  });
}

const REFUSED: [ServeFlags, string, string][] = [
  [
    { tlsCert: 'c.pem' },
    '--tls-cert needs --tls-key too',
    'give both the certificate and its private key, or neither for plain HTTP',
  ],
  [
    { domain: 'Bad_Domain' },
    '--domain: invalid domain "Bad_Domain"',
    'use lowercase DNS labels separated by dots, e.g. localhost or exectl.test',
  ],
  [{ runtime: 'kvm' }, '--runtime: invalid value "kvm"', 'use one of auto, bwrap, process'],
  [
    { listen: 'nowhere' },
    '--listen: invalid listen address "nowhere": expected HOST:PORT such as 127.0.0.1:7070',
    'use HOST:PORT, [IPv6]:PORT or PORT; port 0 picks a free one',
  ],
  [
    { data: '/x', ephemeral: true },
    '--data and --ephemeral cannot be used together',
    'keep the data in a folder, or in a temporary one removed at exit, not both',
  ],
  [
    { maxVmMemory: 'lots' },
    '--max-vm-memory: invalid size "lots"',
    'a size such as 8G or 512M, at least 32M',
  ],
  [{ compat: 'aws' }, '--compat: invalid value "aws"', 'use exe.dev'],
];

for (const [flags, message, hint] of REFUSED) {
  test(`serve settings refuse: ${message}`, () => {
    assert.throws(
      () => resolveServeSettings(flags, ENV),
      (err: unknown) =>
        err instanceof ExectlError &&
        err.code === 'usage' &&
        err.message === message &&
        err.hint === hint,
    );
  });
}
