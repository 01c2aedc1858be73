// SPEC §5: "The secret changes whenever who may run commands in the VM changes (share remove,
// rm, rename, a team member leaving): an old URL then answers 404." Issue 25: after `share
// remove` the former sharer still read the owner's email and used the owner's LLM integration,
// with its key added on the way, through the URL it had read inside the VM.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GeneratedKey } from '../../helpers/keys.js';
import {
  startEchoUpstream,
  startReflectionHarness,
  type EchoUpstream,
  type HttpAnswer,
  type ReflectionHarness,
} from './harness.js';

const FAR = 4_000_000_000;
const LLM_KEY = 'sk-owner0only0never0the0sharer';
const CMDS = ['new', 'rm', 'rename', 'ssh', 'share add', 'share remove', 'integrations add'];
const TEAM_CMDS = ['team add', 'team accept', 'team remove', 'team leave'];

let h: ReflectionHarness;
let upstream: EchoUpstream;
let bob: GeneratedKey;
const tokens = new Map<GeneratedKey | undefined, string>();

/** A command line as `as` (the owner by default) through POST /exec, any status. */
async function run(line: string, as?: GeneratedKey): Promise<HttpAnswer> {
  let token = tokens.get(as);
  if (token === undefined) {
    token = await h.svc.token(JSON.stringify({ exp: FAR, cmds: [...CMDS, ...TEAM_CMDS] }), as);
    tokens.set(as, token);
  }
  return h.http(`${h.svc.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: line,
  });
}

async function ok(line: string, as?: GeneratedKey): Promise<string> {
  const r = await run(line, as);
  assert.equal(r.status, 200, `${line}: ${r.text}`);
  return r.text;
}

/** What `as` reads inside the VM: the EXECTL_REFLECTION_URL its commands get. */
const urlSeenBy = (vm: string, as?: GeneratedKey) =>
  ok(`ssh ${vm} 'printf %s "$EXECTL_REFLECTION_URL"'`, as);

/** Status of `/email` and of the LLM integration behind `url`. */
async function reach(url: string): Promise<[number, number]> {
  const email = await h.http(`${url}/email`);
  const llm = await h.http(`${url}/i/llm/v1/models`);
  return [email.status, llm.status];
}

before(async () => {
  h = await startReflectionHarness({ allowPrivateTargets: true });
  upstream = await startEchoUpstream();
  bob = await h.svc.addAccount('bob@example.com');
  await ok('new --name shared-vm');
  await ok('new --name renamed-vm');
  await ok(
    `integrations add llm --name llm --target ${upstream.url} ` +
      `--header 'Authorization: Bearer ${LLM_KEY}' --attach auto:all`,
  );
});
after(async () => {
  await h.stop();
  await upstream.close();
});

test('share remove: the URL the former sharer read answers 404, the VM gets a new one', async () => {
  await ok('share add shared-vm bob@example.com');
  const bobsUrl = await urlSeenBy('shared-vm', bob);
  assert.equal(bobsUrl, h.reflectionUrl('shared-vm'));
  assert.deepEqual(await reach(bobsUrl), [200, 201]);
  const seenBefore = upstream.requests.length;

  await ok('share remove shared-vm bob@example.com');
  assert.deepEqual(await reach(bobsUrl), [404, 404]);
  assert.equal(upstream.requests.length, seenBefore, 'nothing reached the LLM with its key');
  // The VM's next command gets the new address, and it works.
  const newUrl = await urlSeenBy('shared-vm');
  assert.notEqual(newUrl, bobsUrl);
  assert.equal(newUrl, h.reflectionUrl('shared-vm'));
  assert.deepEqual(await reach(newUrl), [200, 201]);
});

test('rename: the old URL answers 404, the new one names the new name', async () => {
  const before = await urlSeenBy('renamed-vm');
  await ok('rename renamed-vm now-named');
  assert.deepEqual(await reach(before), [404, 404]);
  const after = await urlSeenBy('now-named');
  assert.notEqual(after, before);
  assert.equal(JSON.parse((await h.http(`${after}/`)).text).name, 'now-named');
});

test("a team member leaving (or removed): the team's VMs get new URLs, the member's own never", async () => {
  await ok('new --name bobs-vm', bob);
  for (const leave of [() => ok('team leave', bob), () => ok('team remove bob@example.com')]) {
    await ok('team add bob@example.com');
    // Invited only: nothing changes until bob accepts.
    const teamBefore = await urlSeenBy('shared-vm');
    const bobsBefore = await urlSeenBy('bobs-vm', bob);
    await ok('team accept owner@example.com', bob);
    assert.equal(await urlSeenBy('shared-vm'), teamBefore);
    await leave();
    const teamAfter = await urlSeenBy('shared-vm');
    assert.notEqual(teamAfter, teamBefore);
    assert.deepEqual(await reach(teamBefore), [404, 404]);
    assert.deepEqual((await reach(teamAfter))[0], 200);
    // The member's own VM keeps its URL: its programs keep working.
    assert.equal(await urlSeenBy('bobs-vm', bob), bobsBefore);
    assert.deepEqual((await reach(bobsBefore))[0], 200);
  }
});

test('rm: the URL answers 404', async () => {
  const before = await urlSeenBy('now-named');
  await ok('rm now-named');
  assert.deepEqual(await reach(before), [404, 404]);
});

test('ssh-key remove: the URLs the removed key could read answer 404 (its tag scope only)', async () => {
  await ok('new --name ci-vm --tag ci');
  await ok('new --name other-vm');
  const generated = await h.http(`${h.svc.url}/exec`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await h.svc.token(
        JSON.stringify({ exp: FAR, cmds: ['ssh-key generate-api-key', 'ssh-key remove', 'ssh'] }),
      )}`,
    },
    body: "ssh-key generate-api-key --label ci --tag ci --cmds 'ssh'",
  });
  assert.equal(generated.status, 200, generated.text);
  const ciToken = (JSON.parse(generated.text) as { token: string }).token;
  const read = await h.http(`${h.svc.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ciToken}` },
    body: `ssh ci-vm 'printf %s "$EXECTL_REFLECTION_URL"'`,
  });
  assert.equal(read.status, 200, read.text);
  const leaked = read.text;
  assert.deepEqual(await reach(leaked), [200, 201]);
  const untouched = await urlSeenBy('other-vm');

  const removal = await h.http(`${h.svc.url}/exec`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await h.svc.token(JSON.stringify({ exp: FAR, cmds: ['ssh-key remove'] }))}`,
    },
    body: 'ssh-key remove ci',
  });
  assert.equal(removal.status, 200, removal.text);
  assert.deepEqual(await reach(leaked), [404, 404]);
  assert.notEqual(await urlSeenBy('ci-vm'), leaked);
  // A VM the key could not reach keeps its address.
  assert.equal(await urlSeenBy('other-vm'), untouched);
});
