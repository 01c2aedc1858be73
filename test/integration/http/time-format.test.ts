// SPEC §3: times are RFC 3339 UTC strings, and exectl prints them one way everywhere, whole
// seconds (src/time.ts). Every command of `help all` runs here against a real service, and
// every time in its JSON answer and in its readable text (the SSH front end's renderer) must
// be `YYYY-MM-DDTHH:MM:SSZ`. `stat` printed `booted_at` with milliseconds before this test.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { readableText, textViewFor } from '../../../src/text-views/index.js';
import { catalogPathOf } from '../../../src/command-catalog.js';
import { lexCommandLine } from '../../../src/shell-words.js';

const WHOLE_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
/** Anything that starts like a date and a time, whatever follows: each must be WHOLE_SECONDS. */
const TIME_LIKE = /\d{4}-\d\d-\d\dT[\d:.]+\S*/g;

let svc: TestService;
let ownerToken: string;
let memberToken: string;
let secondPub: string;

/** The command lines run, in order; together they name every command of `help all`. */
const script = (): { line: string; as?: 'member' }[] => [
  { line: 'help' },
  { line: 'help all' },
  { line: 'whoami' },
  { line: 'new --name web --tag blue --comment hello' },
  { line: 'ls' },
  { line: 'ls -l' },
  { line: 'stat web' },
  { line: 'resize web --memory 256M' },
  { line: 'pause web' },
  { line: 'resume web' },
  { line: 'tag web red' },
  { line: 'comment web again' },
  { line: 'rename web www' },
  { line: 'rename www web' },
  { line: 'cp web web2' },
  { line: 'restart web' },
  { line: 'ssh web echo hi' },
  { line: 'ssh-key list' },
  { line: `ssh-key add --name second '${secondPub}'` },
  { line: 'ssh-key rename second third' },
  { line: 'ssh-key generate-api-key --label bot --exp 7d' },
  { line: 'ssh-key generate-api-key --label forever --exp never' },
  { line: 'ssh-key remove third' },
  { line: `svc0-to-svc1 ${ownerToken}` },
  { line: 'share port web 8080' },
  { line: 'share set-public web' },
  { line: 'share set-private web' },
  { line: 'share add web friend@example.com' },
  { line: 'share show' },
  { line: 'share show web' },
  { line: 'share remove web friend@example.com' },
  { line: 'share add-link web' },
  { line: 'share access allow web' },
  { line: 'share receive-email web on' },
  { line: 'set-region fra' },
  { line: 'share show web' },
  { line: 'team add member@example.com' },
  { line: 'team' },
  { line: 'team members' },
  { line: 'team remove member@example.com' },
  { line: 'team add member@example.com' },
  { line: 'team accept owner@example.com', as: 'member' },
  { line: 'team leave', as: 'member' },
  { line: 'team add member@example.com' },
  { line: 'team decline', as: 'member' },
  {
    line: "integrations add http-proxy --name api --target https://example.com --header 'X-Key: k'",
  },
  { line: 'integrations attach api vm:web' },
  { line: 'integrations list' },
  { line: 'integrations detach api vm:web' },
  { line: 'integrations rename api api2' },
  { line: 'integrations remove api2' },
  { line: 'domain add web app.example.com' },
  { line: 'domain ls' },
  { line: 'domain rm web app.example.com' },
  { line: "defaults write dev.exe new.setup-script 'true'" },
  { line: 'defaults read' },
  { line: 'defaults delete dev.exe new.setup-script' },
  { line: 'rm web2' },
  { line: 'browser' },
];

before(async () => {
  // The sandboxed runtime: only a booted machine has a `booted_at` (the process runtime's is null).
  svc = await startTestService({ runtime: 'bwrap' });
  const every =
    '{"cmds":["help","whoami","ls","new","browser","cp","rm","restart","rename","tag",' +
    '"comment","stat","resize","pause","resume","ssh","ssh-key list","ssh-key add",' +
    '"ssh-key remove","ssh-key rename","ssh-key generate-api-key","svc0-to-svc1","share show",' +
    '"share port","share set-public","share set-private","share add","share remove","team",' +
    '"team members","team add","team remove","integrations list","integrations add",' +
    '"integrations remove","integrations rename","integrations attach","integrations detach",' +
    '"share add-link","share access","domain add","domain rm","domain ls","defaults read","defaults write","defaults delete",' +
    '"share receive-email","set-region"]}';
  ownerToken = await svc.token(every);
  const memberKey = await svc.addAccount('member@example.com');
  memberToken = await svc.token('{"cmds":["team accept","team decline","team leave"]}', memberKey);
  secondPub = (await generateKey(svc.dir.path, 'ed25519', { name: 'second' })).publicKeyLine.trim();
});
after(() => svc.stop());

async function exec(line: string, token: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${svc.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: line,
  });
  return { status: response.status, body: await response.text() };
}

/** Every string in `value`, with the JSON path it sits at. */
function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
  }
  return [];
}

/** Waits (bounded) until `web` has booted, so that `stat` has a `booted_at` to show. */
async function untilBooted(): Promise<void> {
  for (let i = 0; i < 240; i++) {
    const stat = JSON.parse((await exec('stat web', ownerToken)).body) as { booted_at: unknown };
    if (stat.booted_at !== null) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail('web never booted');
}

test('every time a command answers, in JSON and as text, is in whole seconds', async () => {
  const covered = new Set<string>();
  let timesSeen = 0;
  for (const { line, as } of script()) {
    if (line === 'stat web') await untilBooted();
    const answer = await exec(line, as === 'member' ? memberToken : ownerToken);
    assert.equal(answer.status, 200, `${line}: ${answer.body}`);
    const words = lexCommandLine(line);
    const path = catalogPathOf(words)?.path ?? words[0]!;
    covered.add(path);
    if (path === 'ssh') {
      assert.equal(answer.body, 'hi\n');
      continue;
    }
    const data = JSON.parse(answer.body) as unknown;
    for (const [at, text] of strings(data)) {
      if (/_at$/.test(at) || /^\d{4}-\d\d-\d\dT/.test(text)) {
        assert.match(text, WHOLE_SECONDS, `${line}: ${at}`);
        timesSeen += 1;
      }
    }
    const flags = new Set(words.includes('-l') ? ['long'] : []);
    const text = readableText(data, textViewFor(path), flags);
    for (const time of text.match(TIME_LIKE) ?? []) {
      assert.match(time, WHOLE_SECONDS, `${line}, as text`);
    }
  }
  // Without these, the loop above could pass by finding no time at all.
  assert.ok(timesSeen >= 15, `only ${timesSeen} times seen`);
  const listed = JSON.parse((await exec('help all', ownerToken)).body) as {
    commands: { name: string }[];
  };
  // Groups (`ssh-key`, `share`, …) only answer their help; their subcommands are run above.
  const groups = new Set(['ssh-key', 'share', 'integrations', 'domain', 'defaults']);
  // Other names of a command run above (`share add-share-link`), and `share remove-link`, whose
  // answer holds no time and whose token only a run makes.
  const others = new Set(['share add-share-link', 'share remove-share-link', 'share remove-link']);
  const missing = listed.commands
    .map((c) => c.name)
    .filter((name) => !covered.has(name) && !groups.has(name) && !others.has(name));
  assert.deepEqual(missing, []);
});
