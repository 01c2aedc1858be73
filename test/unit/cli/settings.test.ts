import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { ExectlError } from '../../../src/errors.js';
import {
  configPath,
  loadConfigFile,
  resolveSettings,
  vmNamespace,
  type ConfigFile,
  type Settings,
  type SettingFlags,
} from '../../../src/cli/settings.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const CONFIG: ConfigFile = {
  path: '/home/u/.config/exectl/config.json',
  profiles: {
    work: {
      url: 'https://exec.example.com',
      key: '~/.ssh/work',
      domain: 'example.com',
      token: 'svc1.WORK',
    },
    ns: { namespace: 'v0@ns.test', key: '/keys/ns' },
    bare: {},
  },
  defaultProfile: 'work',
};
const NO_DEFAULT: ConfigFile = { path: CONFIG.path, profiles: CONFIG.profiles };

const DEFAULTS: Omit<Settings, 'urlFrom' | 'profileFile'> = {
  url: 'http://127.0.0.1:7070',
  profile: undefined,
  keyPath: undefined,
  keyFrom: undefined,
  namespace: 'v0@localhost',
};
const HOME = { HOME: '/home/u' };

test('resolveSettings: flags > env > profile > defaults', () => {
  const cases: [
    string,
    SettingFlags,
    Record<string, string>,
    ConfigFile | undefined,
    Partial<Settings>,
  ][] = [
    ['nothing at all', {}, HOME, undefined, {}],
    [
      'empty env values count as unset',
      {},
      { ...HOME, EXECTL_URL: '', EXECTL_KEY: '' },
      undefined,
      {},
    ],
    [
      'the default profile, ~ expanded',
      {},
      HOME,
      CONFIG,
      {
        url: 'https://exec.example.com',
        profile: 'work',
        keyPath: '/home/u/.ssh/work',
        keyFrom: 'profile',
        namespace: 'v0@example.com',
      },
    ],
    ['no default profile, none named', {}, HOME, NO_DEFAULT, {}],
    [
      '--profile',
      { profile: 'ns' },
      HOME,
      CONFIG,
      { profile: 'ns', keyPath: '/keys/ns', keyFrom: 'profile', namespace: 'v0@ns.test' },
    ],
    [
      'EXECTL_PROFILE',
      {},
      { ...HOME, EXECTL_PROFILE: 'ns' },
      CONFIG,
      { profile: 'ns', keyPath: '/keys/ns', keyFrom: 'profile', namespace: 'v0@ns.test' },
    ],
    [
      '--profile beats EXECTL_PROFILE',
      { profile: 'bare' },
      { ...HOME, EXECTL_PROFILE: 'ns' },
      CONFIG,
      { profile: 'bare' },
    ],
    [
      'env beats the profile',
      {},
      {
        ...HOME,
        EXECTL_URL: 'http://env',
        EXECTL_KEY: '/env/key',
        EXECTL_NAMESPACE: 'v0@env',
      },
      CONFIG,
      {
        url: 'http://env',
        profile: 'work',
        keyPath: '/env/key',
        keyFrom: 'EXECTL_KEY',
        namespace: 'v0@env',
      },
    ],
    [
      'flags beat env',
      { url: 'http://flag', key: '/flag/key', namespace: 'v0@flag' },
      { ...HOME, EXECTL_URL: 'http://env', EXECTL_KEY: '/env/key', EXECTL_NAMESPACE: 'v0@env' },
      CONFIG,
      {
        url: 'http://flag',
        profile: 'work',
        keyPath: '/flag/key',
        keyFrom: '--key',
        namespace: 'v0@flag',
      },
    ],
    [
      'a profile namespace beats its domain',
      { profile: 'ns' },
      HOME,
      CONFIG,
      { profile: 'ns', keyPath: '/keys/ns', keyFrom: 'profile', namespace: 'v0@ns.test' },
    ],
  ];
  for (const [name, flags, env, config, expected] of cases) {
    const { urlFrom: _u, profileFile: _f, ...settings } = resolveSettings(flags, env, config);
    assert.deepEqual(settings, { ...DEFAULTS, ...expected }, name);
  }
});

test('resolveSettings: where the URL came from, in words for messages', () => {
  const cases: [
    SettingFlags,
    Record<string, string>,
    ConfigFile | undefined,
    string,
    string | undefined,
  ][] = [
    [{}, HOME, undefined, 'the default URL', undefined],
    [{ url: 'http://f' }, HOME, CONFIG, '--url', CONFIG.path],
    [{}, { ...HOME, EXECTL_URL: 'http://e' }, CONFIG, 'EXECTL_URL', CONFIG.path],
    [{}, HOME, CONFIG, `url of profile "work" in ${CONFIG.path}`, CONFIG.path],
    [{ profile: 'ns' }, HOME, CONFIG, 'the default URL', CONFIG.path],
  ];
  for (const [flags, env, config, urlFrom, profileFile] of cases) {
    const settings = resolveSettings(flags, env, config);
    assert.deepEqual([settings.urlFrom, settings.profileFile], [urlFrom, profileFile], urlFrom);
  }
});

test('resolveSettings: a named profile must exist (also a name from Object.prototype)', () => {
  for (const name of ['nope', 'toString', '__proto__']) {
    assert.throws(
      () => resolveSettings({ profile: name }, HOME, CONFIG),
      (err: unknown) =>
        err instanceof ExectlError &&
        err.code === 'usage' &&
        err.message === `profile "${name}" not found` &&
        err.hint ===
          `see exectl profile list, or add it with exectl profile add ${name} --url URL (to ${CONFIG.path})`,
    );
  }
  assert.throws(() => resolveSettings({ profile: 'work' }, HOME, undefined), {
    message: 'profile "work" not found',
    hint: 'see exectl profile list, or add it with exectl profile add work --url URL (to /home/u/.config/exectl/config.json)',
  });
});

test('vmNamespace: v0@<vm>.<domain> from the command namespace', () => {
  assert.equal(vmNamespace('v0@localhost', 'web'), 'v0@web.localhost');
  assert.equal(vmNamespace('v0@example.com', 'a-1'), 'v0@a-1.example.com');
  const cases: [string, string, string][] = [
    ['v0@localhost', 'w', '--vm "w" is not a valid VM name'],
    ['v0@localhost', 'Web', '--vm "Web" is not a valid VM name'],
    ['v0@localhost', 'web-', '--vm "web-" is not a valid VM name'],
    ['v0@localhost', '1web', '--vm "1web" is not a valid VM name'],
    ['v0@localhost', 'a'.repeat(64), `--vm "${'a'.repeat(64)}" is not a valid VM name`],
    ['git', 'web', '--vm needs a namespace of the form v0@<domain>, not "git"'],
    ['v0@', 'web', '--vm needs a namespace of the form v0@<domain>, not "v0@"'],
  ];
  for (const [namespace, vm, message] of cases) {
    assert.throws(
      () => vmNamespace(namespace, vm),
      { code: 'usage', message },
      `${namespace} ${vm}`,
    );
  }
});

test('configPath: XDG_CONFIG_HOME when absolute, else ~/.config', () => {
  assert.equal(configPath({ HOME: '/h', XDG_CONFIG_HOME: '/x' }), '/x/exectl/config.json');
  assert.equal(
    configPath({ HOME: '/h', XDG_CONFIG_HOME: 'relative' }),
    '/h/.config/exectl/config.json',
  );
  assert.equal(configPath({ HOME: '/h', XDG_CONFIG_HOME: '' }), '/h/.config/exectl/config.json');
  assert.equal(configPath({ HOME: '/h' }), '/h/.config/exectl/config.json');
});

let dir: TempDir;
before(async () => {
  dir = await createTempDir('unit-settings');
  await mkdir(dir.join('exectl'));
});
after(() => dir.remove());

test('loadConfigFile: none, valid, and every kind of broken file', async () => {
  const env = { HOME: dir.path, XDG_CONFIG_HOME: dir.path };
  const path = dir.join('exectl', 'config.json');
  assert.equal(loadConfigFile(env), undefined);

  await writeFile(path, '{"profiles":{"p":{"url":"http://u"}},"defaultProfile":"p"}');
  assert.deepEqual(loadConfigFile(env), {
    path,
    profiles: { p: { url: 'http://u' } },
    defaultProfile: 'p',
  });
  await writeFile(path, '{}');
  assert.deepEqual(loadConfigFile(env), { path, profiles: {} });

  const cases: [string, string][] = [
    ['nope', 'is not valid JSON'],
    ['[]', 'must hold a JSON object'],
    ['{"extra":1}', 'has an unknown field "extra"'],
    ['{"profiles":[]}', '"profiles" must be an object'],
    ['{"profiles":{"p":"x"}}', 'profile "p" must be an object'],
    ['{"profiles":{"p":{"colour":"red"}}}', 'profile "p" has an unknown field "colour"'],
    ['{"profiles":{"p":{"key":""}}}', 'profile "p": "key" must be a non-empty string'],
    ['{"defaultProfile":1}', '"defaultProfile" must be a string'],
  ];
  for (const [text, problem] of cases) {
    await writeFile(path, text);
    assert.throws(() => loadConfigFile(env), {
      code: 'usage',
      message: `config file ${path} ${problem}`,
      hint: 'fix it (its format is in exectl(1), PROFILES) or move it away',
    });
  }
  await mkdir(dir.join('dir-home', 'exectl', 'config.json'), { recursive: true });
  assert.throws(() => loadConfigFile({ HOME: dir.path, XDG_CONFIG_HOME: dir.join('dir-home') }), {
    message: `config file ${dir.join('dir-home', 'exectl', 'config.json')} cannot be read (EISDIR)`,
  });
});
