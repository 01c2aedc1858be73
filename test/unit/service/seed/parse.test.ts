// The --seed file format: a full seed parsed to its exact shape, every rule refused with its
// exact message and JSON path (table), and fast-check properties on untrusted input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { parseSeed, SeedFormatError, type Seed } from '../../../../src/service/seed/index.js';
import { generateKey, type GeneratedKey } from '../../../helpers/keys.js';
import { rsaLine } from '../../../helpers/rsa-lines.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';

let dir: TempDir;
let key: GeneratedKey;
let other: GeneratedKey;
before(async () => {
  dir = await createTempDir('seed-parse');
  key = await generateKey(dir.path, 'ed25519', { comment: 'ada@laptop' });
  other = await generateKey(dir.path, 'ecdsa-256');
});
after(() => dir.remove());

/** A parsed seed as plain data: keys as their .pub lines. */
function plain(seed: Seed): unknown {
  return seed.accounts.map((a) => ({
    ...a,
    keys: a.keys.map((k) => ({ path: k.path, key: k.key.toOpenSsh(), name: k.name })),
  }));
}

test('a full seed parses to its exact shape; absent fields stay undefined', () => {
  const seed = parseSeed(
    JSON.stringify({
      accounts: [
        {
          email: 'ada@example.com',
          keys: [key.publicKeyLine, { key: other.publicKeyLine, name: 'ci' }],
          vms: [
            {
              name: 'web',
              tags: ['prod', 'api', 'prod'],
              comment: 'the site',
              default_port: 3000,
              visibility: 'public',
              env: { MODE: 'dev', __proto__x: 'y' },
              setup_script: 'echo hi > ~/hello',
              limits: { cpus: 1.5, memory_bytes: 536870912, pids: 100, disk_bytes: 1073741824 },
              shares: ['bob@example.com'],
            },
            { name: 'db' },
          ],
          integrations: [
            {
              name: 'openai',
              type: 'llm',
              target: 'https://api.example.com',
              headers: ['Authorization: Bearer sk-test'],
              headers_without_values: ['X-Org'],
              comment: 'models',
              attach: ['tag:api', 'vm:db'],
            },
            {
              name: 'reflection',
              type: 'reflection',
              attach: ['auto:all'],
              fields: ['tags', '/email'],
            },
          ],
          team_members: ['bob@example.com'],
        },
        { email: 'bob@example.com' },
      ],
    }),
  );
  assert.deepEqual(plain(seed), [
    {
      path: 'accounts[0]',
      email: 'ada@example.com',
      keys: [
        { path: 'accounts[0].keys[0]', key: key.publicKeyLine, name: undefined },
        { path: 'accounts[0].keys[1]', key: other.publicKeyLine, name: 'ci' },
      ],
      integrations: [
        {
          path: 'accounts[0].integrations[0]',
          name: 'openai',
          type: 'llm',
          target: 'https://api.example.com',
          headers: ['Authorization: Bearer sk-test'],
          headersWithoutValues: ['X-Org'],
          comment: 'models',
          attach: ['tag:api', 'vm:db'],
          fields: undefined,
        },
        {
          path: 'accounts[0].integrations[1]',
          name: 'reflection',
          type: 'reflection',
          target: undefined,
          headers: undefined,
          headersWithoutValues: [],
          comment: undefined,
          attach: ['auto:all'],
          fields: ['email', 'tags'],
        },
      ],
      vms: [
        {
          path: 'accounts[0].vms[0]',
          name: 'web',
          tags: ['api', 'prod'],
          comment: 'the site',
          defaultPort: 3000,
          visibility: 'public',
          env: { MODE: 'dev', __proto__x: 'y' },
          setupScript: 'echo hi > ~/hello',
          limits: { cpus: 1.5, memoryBytes: 536870912, pids: 100, diskBytes: 1073741824 },
          shares: ['bob@example.com'],
        },
        {
          path: 'accounts[0].vms[1]',
          name: 'db',
          tags: undefined,
          comment: undefined,
          defaultPort: undefined,
          visibility: undefined,
          env: undefined,
          setupScript: undefined,
          limits: undefined,
          shares: undefined,
        },
      ],
      teamMembers: [{ email: 'bob@example.com', path: 'accounts[0].team_members[0]' }],
    },
    {
      path: 'accounts[1]',
      email: 'bob@example.com',
      keys: [],
      integrations: [],
      vms: [],
      teamMembers: [],
    },
  ]);
});

test('an env variable named __proto__ is kept as a plain variable', () => {
  const seed = parseSeed(
    '{"accounts":[{"email":"a@b","vms":[{"name":"web","env":{"__proto__":"x"}}]}]}',
  );
  const env = seed.accounts[0]!.vms[0]!.env!;
  assert.deepEqual(Object.entries(env), [['__proto__', 'x']]);
  assert.equal(Object.getPrototypeOf(env), Object.prototype);
});

/** `{"accounts":[{"email":"a@b", ...fields}]}` as text. */
const account = (fields: string) => `{"accounts":[{"email":"a@b"${fields}}]}`;
const vm = (fields: string) => account(`,"vms":[{"name":"web"${fields}}]`);
const integration = (fields: string) => account(`,"integrations":[{"name":"x"${fields}}]`);

describe('refusals name the JSON path', () => {
  const cases: [string, string][] = [
    ['', 'not valid JSON'],
    ['{"accounts":[]', 'not valid JSON'],
    ['[]', 'expected an object, found an array'],
    ['{}', 'missing field "accounts"'],
    ['{"accounts":[],"accounts":[]}', 'duplicate key "accounts"'],
    ['{"accounts":[],"users":[]}', 'unknown field "users" (known: accounts)'],
    ['{"accounts":{}}', 'accounts: expected an array, found an object'],
    ['{"accounts":[null]}', 'accounts[0]: expected an object, found null'],
    ['{"accounts":[{}]}', 'accounts[0]: missing field "email"'],
    ['{"accounts":[{"email":7}]}', 'accounts[0].email: expected a string, found number 7'],
    ['{"accounts":[{"email":"ada"}]}', 'accounts[0].email: invalid email "ada"'],
    [
      account(',"emial":"x"'),
      'accounts[0]: unknown field "emial" (known: email, keys, vms, integrations, team_members)',
    ],
    [
      '{"accounts":[{"email":"a@b"},{"email":"A@B"}]}',
      'accounts[1].email: second account A@B (first at accounts[0].email)',
    ],
    [account(',"keys":["not a key"]'), 'accounts[0].keys[0]: not an SSH public key'],
    [account(',"keys":["ssh-foo AAAA"]'), 'accounts[0].keys[0]: invalid SSH public key'],
    [
      account(`,"keys":["${rsaLine(8200)}"]`),
      'accounts[0].keys[0]: RSA key of 8200 bits is too large (at most 8192)',
    ],
    [account(',"keys":[{"name":"x"}]'), 'accounts[0].keys[0]: missing field "key"'],
    [
      account(',"keys":[{"key":"x","nam":"y"}]'),
      'accounts[0].keys[0]: unknown field "nam" (known: key, name, tag)',
    ],
    [account(',"keys":[true]'), 'accounts[0].keys[0]: expected an object, found boolean true'],
    [account(',"vms":[{}]'), 'accounts[0].vms[0]: missing field "name"'],
    [
      vm(',"tags":["ok","Bad"]'),
      'accounts[0].vms[0].tags[1]: invalid tag "Bad": use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter',
    ],
    [
      vm(`,"comment":"${'x'.repeat(201)}"`),
      'accounts[0].vms[0].comment: comment exceeds 200 bytes',
    ],
    [
      vm(',"default_port":80'),
      'accounts[0].vms[0].default_port: expected a whole number from 1024 to 65535, found number 80',
    ],
    [
      vm(',"default_port":8000.5'),
      'accounts[0].vms[0].default_port: expected a whole number from 1024 to 65535, found number 8000.5',
    ],
    [
      vm(',"visibility":"open"'),
      'accounts[0].vms[0].visibility: expected "private" or "public", found "open"',
    ],
    [vm(',"env":[]'), 'accounts[0].vms[0].env: expected an object, found an array'],
    [vm(',"env":{"A":1}'), 'accounts[0].vms[0].env.A: expected a string, found number 1'],
    [
      vm(',"env":{"1A":"x"}'),
      'accounts[0].vms[0].env["1A"]: invalid variable name "1A": use letters, digits and "_", not starting with a digit',
    ],
    [vm(',"env":{"A":"1","A":"2"}'), 'duplicate key "A"'],
    [
      vm(',"setup_script":["ls"]'),
      'accounts[0].vms[0].setup_script: expected a string, found an array',
    ],
    [
      '{"accounts":[{"email":"a@b","vms":[{"name":"web"}]},{"email":"c@d","vms":[{"name":"web"}]}]}',
      'accounts[1].vms[0]: second entry for vm "web" (first at accounts[0].vms[0])',
    ],
    [
      account(',"integrations":[{"type":"llm"}]'),
      'accounts[0].integrations[0]: missing field "name"',
    ],
    [
      integration(',"type":"slack"'),
      'accounts[0].integrations[0].type: unknown integration type "slack" (known: reflection, llm, github, http-proxy)',
    ],
    [
      account(',"integrations":[{"name":"X","type":"llm"}]'),
      'accounts[0].integrations[0].name: invalid integration name "X": use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter',
    ],
    [
      integration(',"type":"reflection","target":"http://x"'),
      'accounts[0].integrations[0].target: a reflection integration has no target',
    ],
    [
      integration(',"type":"llm","target":"ftp://x"'),
      'accounts[0].integrations[0].target: invalid target "ftp://x": expected an http:// or https:// URL',
    ],
    [
      integration(',"type":"llm","headers":["Authorization Bearer x"]'),
      // The value may be a secret: it is never echoed back.
      'accounts[0].integrations[0].headers[0]: invalid header: expected "Name: value"',
    ],
    [
      integration(',"type":"llm","headers":["X-Key: ключ"]'),
      'accounts[0].integrations[0].headers[0]: invalid value for header "X-Key": only visible ASCII characters, spaces and tabs are allowed',
    ],
    [
      integration(',"type":"llm","headers_without_values":["X Key"]'),
      'accounts[0].integrations[0].headers_without_values[0]: invalid header name "X Key"',
    ],
    [
      integration(',"type":"llm","attach":["all"]'),
      'accounts[0].integrations[0].attach[0]: invalid attachment "all": expected auto:all, tag:<tag> or vm:<name>',
    ],
    [
      integration(',"type":"llm","attach":["vm:Web"]'),
      'accounts[0].integrations[0].attach[0]: invalid vm name "Web": use 2 to 63 lowercase letters, digits or dashes, starting with a letter and not ending with a dash',
    ],
    [
      account(',"integrations":[{"name":"x","type":"llm"},{"name":"x","type":"github"}]'),
      'accounts[0].integrations[1]: second entry for integration "x" (first at accounts[0].integrations[0])',
    ],
    [
      vm(',"limits":{"cpus":0}'),
      'accounts[0].vms[0].limits.cpus: expected a number of CPUs from 0.01 to 1024, at most two decimals',
    ],
    [
      vm(',"limits":{"cpus":1.005}'),
      'accounts[0].vms[0].limits.cpus: expected a number of CPUs from 0.01 to 1024, at most two decimals',
    ],
    [
      vm(',"limits":{"memory_bytes":1024}'),
      'accounts[0].vms[0].limits.memory_bytes: expected a whole number from 33554432 to 9007199254740991, found number 1024',
    ],
    [
      vm(',"limits":{"pids":0}'),
      'accounts[0].vms[0].limits.pids: expected a whole number from 1 to 4194304, found number 0',
    ],
    [
      vm(',"limits":{"disk":1}'),
      'accounts[0].vms[0].limits: unknown field "disk" (known: cpus, memory_bytes, pids, disk_bytes)',
    ],
    [vm(',"shares":["bob"]'), 'accounts[0].vms[0].shares[0]: invalid email "bob"'],
    [
      integration(',"type":"llm","fields":["email"]'),
      'accounts[0].integrations[0].fields: only a reflection integration has fields',
    ],
    [
      integration(',"type":"reflection","fields":["secret"]'),
      'accounts[0].integrations[0].fields: unknown reflection field "secret" (known: email, integrations, tags, comment, default_port)',
    ],
    [account(',"team_members":["A@B"]'), 'accounts[0].team_members[0]: a@b owns this team already'],
    [
      account(',"team_members":"bob@x"'),
      'accounts[0].team_members: expected an array, found a string',
    ],
  ];
  for (const [text, message] of cases) {
    test(message, () => {
      assert.throws(
        () => parseSeed(text),
        (err: unknown) => {
          assert.ok(err instanceof SeedFormatError);
          assert.deepEqual([err.code, err.message], ['cannot_start', message]);
          return true;
        },
      );
    });
  }

  test('the same key under two accounts is refused', () => {
    const text = JSON.stringify({
      accounts: [
        { email: 'a@b', keys: [key.publicKeyLine] },
        { email: 'c@d', keys: [{ key: key.publicKeyLine }] },
      ],
    });
    const fingerprint = parseSeed(
      JSON.stringify({ accounts: [{ email: 'a@b', keys: [key.publicKeyLine] }] }),
    ).accounts[0]!.keys[0]!.key.fingerprint;
    assert.throws(() => parseSeed(text), {
      message: `accounts[1].keys[0]: second entry for key ${fingerprint} (first at accounts[0].keys[0])`,
    });
  });
});

describe('untrusted input (fast-check)', () => {
  const onlySeedErrors = (text: string) => {
    try {
      parseSeed(text);
    } catch (err) {
      if (!(err instanceof SeedFormatError) || err.message.includes('\n')) throw err;
    }
  };

  test('any text: a seed or one SeedFormatError, never another failure', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), onlySeedErrors), { numRuns: 500 });
  });

  test('any JSON value, also under each field of an account: same', () => {
    const anyJson = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(anyJson, (value) => onlySeedErrors(JSON.stringify(value))),
      {
        numRuns: 300,
      },
    );
    const field = fc.constantFrom('email', 'keys', 'vms', 'integrations', 'team_members');
    fc.assert(
      fc.property(field, anyJson, (name, value) =>
        onlySeedErrors(JSON.stringify({ accounts: [{ email: 'a@b', [name]: value }] })),
      ),
      { numRuns: 300 },
    );
  });

  test('deep nesting is refused without exhausting the stack', () => {
    const deep = `{"accounts":[{"email":"a@b","vms":[{"name":"web","env":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}]}`;
    assert.throws(() => parseSeed(deep), {
      message: 'accounts[0].vms[0].env: expected an object, found an array',
    });
  });
});
