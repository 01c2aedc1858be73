// The integrations commands (SPEC §3, §5) on a real store through the real dispatcher: exact
// answers, the text form, every refusal with its exact 422 sentence, and header values that
// never come back out.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;

const ALL_FIELDS = ['email', 'integrations', 'tags', 'comment', 'default_port'];
const SECRET = 'Bearer sk-live-0123456789';

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  fx.addVm(ada, 'web');
  fx.addVm(bob, 'bobs');
  fx.addVm(bob, 'shared-box');
  fx.store.addShare(fx.store.getVmByName('shared-box')!.id, 'ada@example.com');
});
after(() => fx.cleanup());

const reflection = {
  name: 'reflection',
  type: 'reflection',
  comment: '',
  target: null,
  attachments: ['auto:all'],
  header_names: [],
  fields: ALL_FIELDS,
};

/** An integration as `integrations list` answers it: the real service's shape (a JSON array). */
function listedAs(integration: typeof reflection | Record<string, unknown>) {
  const { name, type, comment, target, attachments, header_names, fields } =
    integration as typeof reflection;
  return {
    name,
    type,
    config: { target, header_names, ...(type === 'reflection' ? { fields } : {}) },
    attachments,
    comment,
  };
}

test('every account starts with reflection attached auto:all, opening every field', async () => {
  assert.deepEqual(await fx.run(ada, 'integrations list'), [listedAs(reflection)]);
});

test('add llm: target, headers (names shown, values never), comment, attachments', async () => {
  const line =
    `integrations add llm --name openai --target https://api.openai.com ` +
    `--header 'Authorization: ${SECRET}' --header 'X-Org:  acme ' --header 'authorization: again' ` +
    `--comment 'the LLM' --attach tag:ai --attach vm:web --attach tag:ai`;
  const openai = {
    name: 'openai',
    type: 'llm',
    comment: 'the LLM',
    target: 'https://api.openai.com',
    attachments: ['tag:ai', 'vm:web'],
    header_names: ['Authorization', 'X-Org'],
    fields: [],
  };
  assert.deepEqual(await fx.run(ada, line), openai);
  const listed = await fx.run(ada, 'integrations list');
  assert.deepEqual(listed, [listedAs(openai), listedAs(reflection)]);
  assert.ok(!JSON.stringify(listed).includes('sk-live'));
  assert.ok(!(await fx.text(ada, 'integrations list')).includes('sk-live'));
  // The store keeps the lines as typed: the proxy adds them.
  assert.deepEqual(fx.store.getIntegration(ada.account.id, 'openai')?.headers, [
    `Authorization: ${SECRET}`,
    'X-Org:  acme ',
    'authorization: again',
  ]);
  assert.equal(
    await fx.text(ada, 'integrations list'),
    'NAME        TYPE        TARGET                  ATTACHED       COMMENT\n' +
      'openai      llm         https://api.openai.com  tag:ai,vm:web  the LLM\n' +
      'reflection  reflection  -                       auto:all       -\n',
  );
  fx.store.removeIntegration(fx.store.getIntegration(ada.account.id, 'openai')!.id);
});

test('add reflection with --fields (with or without "/", SPEC order); "" opens none', async () => {
  assert.deepEqual(
    await fx.run(
      ada,
      "integrations add reflection --name refl-min --fields ' /tags, email' --attach tag:ci",
    ),
    {
      ...reflection,
      name: 'refl-min',
      attachments: ['tag:ci'],
      fields: ['email', 'tags'],
    },
  );
  assert.deepEqual(await fx.run(ada, "integrations add reflection --name refl-none --fields ''"), {
    ...reflection,
    name: 'refl-none',
    attachments: [],
    fields: [],
  });
  assert.equal(
    await fx.text(ada, 'integrations rename refl-min refl-small'),
    'integration: refl-small\n' +
      'type:        reflection\n' +
      'target:      -\n' +
      'attached:    tag:ci\n' +
      'headers:     -\n' +
      'fields:      email,tags\n' +
      'comment:     -\n',
  );
  assert.deepEqual(await fx.run(ada, 'integrations remove refl-small'), { removed: 'refl-small' });
  assert.equal(
    await fx.text(ada, 'integrations remove refl-none'),
    'removed integration refl-none\n',
  );
  assert.deepEqual(await fx.run(ada, 'integrations list'), [listedAs(reflection)]);
});

test('rename, attach, detach answer the integration; a rename keeps attachments', async () => {
  await fx.run(ada, 'integrations add http-proxy --name hp --target http://198.51.100.7:9/base');
  const hp = {
    name: 'hp',
    type: 'http-proxy',
    comment: '',
    target: 'http://198.51.100.7:9/base',
    attachments: [] as string[],
    header_names: [],
    fields: [],
  };
  assert.deepEqual(await fx.run(ada, 'integrations attach hp vm:web'), {
    ...hp,
    attachments: ['vm:web'],
  });
  assert.deepEqual(await fx.run(ada, 'integrations attach hp auto:all'), {
    ...hp,
    attachments: ['auto:all', 'vm:web'],
  });
  assert.deepEqual(await fx.run(ada, 'integrations rename hp proxy'), {
    ...hp,
    name: 'proxy',
    attachments: ['auto:all', 'vm:web'],
  });
  assert.deepEqual(await fx.run(ada, 'integrations detach proxy auto:all'), {
    ...hp,
    name: 'proxy',
    attachments: ['vm:web'],
  });
  assert.deepEqual(await fx.run(ada, 'integrations rename proxy proxy'), {
    ...hp,
    name: 'proxy',
    attachments: ['vm:web'],
  });
  assert.deepEqual(await fx.run(ada, 'integrations remove proxy'), { removed: 'proxy' });
});

test('new --integration attaches vm:<name>; the list shows it', async () => {
  await fx.run(ada, 'integrations add github --name gh --target https://github.com');
  const vm = fx.addVm(ada, 'builder', { integrations: ['gh'] });
  const listed = (await fx.run(ada, 'integrations list')) as {
    name: string;
    attachments: string[];
  }[];
  assert.deepEqual(listed.find((i) => i.name === 'gh')?.attachments, ['vm:builder']);
  assert.deepEqual(
    fx.store.integrationsForVm(vm).map((i) => i.name),
    ['gh', 'reflection'],
  );
  await fx.run(ada, 'integrations remove gh');
});

test('integrations are per account: another account neither sees nor touches them', async () => {
  await fx.run(ada, 'integrations add llm --name mine --target http://198.51.100.7:9');
  assert.deepEqual(await fx.run(bob, 'integrations list'), [listedAs(reflection)]);
  for (const line of [
    'integrations remove mine',
    'integrations rename mine theirs',
    'integrations attach mine auto:all',
    'integrations detach mine auto:all',
  ]) {
    assert.deepEqual(
      await fx.fail(bob, line),
      { status: 422, message: 'integration "mine" not found', body: undefined },
      line,
    );
  }
  // The same name is free in every account.
  await fx.run(bob, 'integrations add llm --name mine --target http://198.51.100.7:9');
  await fx.run(bob, 'integrations remove mine');
  await fx.run(ada, 'integrations remove mine');
});

test('refusals: one 422 sentence each, nothing created, header values never echoed', async () => {
  await fx.run(
    ada,
    'integrations add llm --name taken --target http://198.51.100.7:9 --attach auto:all',
  );
  const llm = 'integrations add llm --name x --target http://198.51.100.7:9';
  const tagError =
    'invalid tag "Bad": use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter';
  const cases: [line: string, message: string][] = [
    ['integrations add', 'missing argument <type>'],
    [
      'integrations add ftp --name x',
      'unknown integration type "ftp" (known: reflection, llm, github, http-proxy)',
    ],
    ['integrations add llm --target http://198.51.100.7:9', 'missing flag --name'],
    [
      'integrations add llm --name Bad --target http://h',
      'invalid integration name "Bad": use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter',
    ],
    [
      'integrations add llm --name x',
      'missing flag --target: llm integrations forward requests to it',
    ],
    [
      'integrations add github --name x',
      'missing flag --target: github integrations forward requests to it',
    ],
    [
      'integrations add llm --name x --target ftp://h/x',
      'invalid target "ftp://h": expected an http:// or https:// URL',
    ],
    [
      'integrations add llm --name x --target not-a-url',
      'invalid target "not-a-url": expected an http:// or https:// URL',
    ],
    [
      'integrations add llm --name x --target https://user:hunter2@h/',
      'invalid target "https://h": put credentials in --header, not in the URL',
    ],
    [
      'integrations add llm --name x --target https://h/?key=k',
      'invalid target "https://h": a target has no query or fragment',
    ],
    [
      'integrations add llm --name x --target https://h/#f',
      'invalid target "https://h": a target has no query or fragment',
    ],
    [`${llm} --header 'Authorization ${SECRET}'`, 'invalid header: expected "Name: value"'],
    [`${llm} --header 'Auth orization: ${SECRET}'`, 'invalid header name "Auth orization"'],
    [`${llm} --header ': ${SECRET}'`, 'invalid header name ""'],
    [
      `${llm} --header 'Host: example.com'`,
      'header "Host" is set by the proxy and cannot be configured',
    ],
    [
      `${llm} --header 'Transfer-Encoding: chunked'`,
      'header "Transfer-Encoding" is set by the proxy and cannot be configured',
    ],
    // SPEC §6: visible ASCII, spaces and tabs only; anything else would fail every request.
    ...[`${SECRET}\u0001`, `${SECRET}\u007f`, `${SECRET}é`, `ключ${SECRET}`, `${SECRET}🔑`].map(
      (value): [string, string] => [
        `${llm} --header "X-Key: ${value}"`,
        'invalid value for header "X-Key": only visible ASCII characters, spaces and tabs are allowed',
      ],
    ),
    [
      'integrations add reflection --name r2 --target http://h',
      'a reflection integration has no target',
    ],
    [
      "integrations add reflection --name r2 --header 'X: y'",
      'a reflection integration has no headers',
    ],
    [`${llm} --fields email`, '--fields applies to reflection integrations only'],
    [
      'integrations add reflection --name r2 --fields email,secrets',
      'unknown reflection field "secrets" (known: email, integrations, tags, comment, default_port)',
    ],
    [`${llm} --comment '${'c'.repeat(201)}'`, 'comment exceeds 200 bytes'],
    [
      `${llm} --attach everything`,
      'invalid attachment "everything": expected auto:all, tag:<tag> or vm:<name>',
    ],
    [
      `${llm} --attach auto:none`,
      'invalid attachment "auto:none": expected auto:all, tag:<tag> or vm:<name>',
    ],
    [`${llm} --attach tag:Bad`, tagError],
    [`${llm} --attach vm:ghost`, 'vm "ghost" not found'],
    [`${llm} --attach vm:bobs`, 'vm "bobs" not found'],
    [
      `${llm} --attach vm:shared-box`,
      'only the owner of vm "shared-box" can attach integrations to it',
    ],
    ['integrations add llm --name taken --target http://h', 'integration "taken" already exists'],
    ['integrations remove ghost', 'integration "ghost" not found'],
    ['integrations remove', 'missing argument <name>'],
    ['integrations rename ghost other', 'integration "ghost" not found'],
    [
      'integrations rename taken Nope',
      'invalid integration name "Nope": use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter',
    ],
    ['integrations rename taken reflection', 'integration "reflection" already exists'],
    ['integrations attach taken auto:all', 'integration "taken" is already attached to auto:all'],
    ['integrations attach taken tag:Bad', tagError],
    [
      'integrations attach taken vm:shared-box',
      'only the owner of vm "shared-box" can attach integrations to it',
    ],
    ['integrations attach ghost auto:all', 'integration "ghost" not found'],
    ['integrations detach taken tag:never', 'integration "taken" is not attached to tag:never'],
    [
      'integrations detach taken whatever',
      'invalid attachment "whatever": expected auto:all, tag:<tag> or vm:<name>',
    ],
  ];
  const before = JSON.stringify(fx.store.listIntegrations(ada.account.id));
  for (const [line, message] of cases) {
    const failure = await fx.fail(ada, line);
    assert.deepEqual(failure, { status: 422, message, body: undefined }, line);
    assert.ok(!failure.message.includes('sk-live'), line);
    assert.ok(!failure.message.includes('hunter2'), line);
  }
  assert.equal(JSON.stringify(fx.store.listIntegrations(ada.account.id)), before);
  await fx.run(ada, 'integrations remove taken');
});

test('integrations --help lists the group; integrations add --help is exact', async () => {
  const group = (await fx.run(ada, 'integrations --help')) as { subcommands: { name: string }[] };
  assert.deepEqual(
    group.subcommands.map((s) => s.name),
    [
      'integrations list',
      'integrations add',
      'integrations remove',
      'integrations rename',
      'integrations attach',
      'integrations detach',
    ],
  );
  assert.deepEqual(await fx.run(ada, 'integrations add --help'), {
    name: 'integrations add',
    usage:
      'integrations add <type> --name N [--target URL] [--header K:V]... [--comment C] [--attach SPEC]... [--fields LIST]',
    description: 'Add an integration: reflection, llm, github or http-proxy',
    flags: [
      {
        name: '--name',
        type: 'string',
        default: null,
        description: 'Name of the integration (required)',
      },
      {
        name: '--target',
        type: 'string',
        default: null,
        description: 'http(s) URL requests are forwarded to (required except for reflection)',
      },
      {
        name: '--header',
        type: 'string[]',
        default: [],
        description: '"Name: value" added to every forwarded request, repeatable; kept secret',
      },
      {
        name: '--comment',
        type: 'string',
        default: null,
        description: 'A comment, at most 200 bytes',
      },
      {
        name: '--attach',
        type: 'string[]',
        default: [],
        description: 'Which VMs see it: auto:all, tag:<tag> or vm:<name>, repeatable',
      },
      {
        name: '--fields',
        type: 'string',
        default: null,
        description:
          'reflection only: the paths it opens, comma-separated (default: email,integrations,tags,comment,default_port)',
      },
    ],
    examples: [
      "integrations add llm --name openai --target https://api.openai.com --header 'Authorization: Bearer sk-...' --attach tag:ai",
      "integrations add github --name gh --target https://github.com --header 'Authorization: Basic <base64 of x-access-token:TOKEN>' --attach vm:web",
      'integrations add reflection --name reflection-basic --fields email,tags --attach tag:ci',
    ],
    subcommands: [],
  });
  // --help runs nothing, even after a complete command line.
  await fx.run(ada, 'integrations add llm --name helped --target http://198.51.100.7:9 --help');
  assert.equal(fx.store.getIntegration(ada.account.id, 'helped'), undefined);
});
