// A machine VM's doors (SPEC §4 "its own network", §6), through the real service as root: the
// server's listeners inside every VM with no host process per connection, each VM counted as a
// client of its own, and a proxied request that a VM sends back to the server refused at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { curl, FAR } from '../proxy/fixture.js';
import { run, type GeneratedKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const CMDS_JSON = JSON.stringify(['new', 'ssh', 'share set-public', 'share port']);

/** A script of this folder, as a shell word that writes it into the VM's home. */
function scriptInto(name: string): string {
  const text = readFileSync(new URL(name, import.meta.url));
  return `echo ${text.toString('base64')} | base64 -d > ${name}`;
}

describe('a machine VM’s doors (as root)', () => {
  let svc: TestService;
  let other: GeneratedKey;
  let port: string;
  const tokens = new Map<GeneratedKey | undefined, string>();

  const exec = async (line: string, key?: GeneratedKey) => {
    let token = tokens.get(key);
    if (token === undefined) {
      token = await svc.token(`{"exp":${FAR},"cmds":${CMDS_JSON}}`, key);
      tokens.set(key, token);
    }
    const res = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: line,
    });
    return { status: res.status, text: await res.text() };
  };
  const ok = async (line: string, key?: GeneratedKey): Promise<string> => {
    const answer = await exec(line, key);
    assert.equal(answer.status, 200, `${line}: ${answer.text}`);
    return answer.text;
  };

  before(async () => {
    svc = await startTestService({
      runtime: 'bwrap',
      commandDeadlineMs: 25_000,
      // Failed verifications per address count only with rate limiting on; this limit per key
      // is far above what the tests' own commands use.
      rateLimit: { capacity: 10_000, refillMs: 1_000 },
    });
    other = await svc.addAccount('other@example.com');
    port = new URL(svc.url).port;
    await ok('new --name gamma');
    await ok('new --name delta', other);
    // Both booted (a boot starts processes of its own: the counts below must not see one).
    await ok('ssh gamma true');
    await ok('ssh delta true', other);
  });
  after(() => svc.stop());

  test('inside: curl $EXECTL_REFLECTION_URL/ and the HTTP listener’s /healthz answer', async () => {
    const out = await ok(
      `ssh gamma curl -s -w ' %{http_code}' http://127.0.0.1:${port}/healthz; echo; curl -s "$EXECTL_REFLECTION_URL/" | head -c 9`,
    );
    assert.match(out, /^\{"status":"ok".*\}\n200\n\{\n {2}"name$/s);
  });

  test('300 connections a VM holds to the server make no host process outside its cgroups', async () => {
    const before = outsideVmCgroups();
    const held = await ok(
      `ssh gamma ${scriptInto('in-vm-hold.py')} && (setsid python3 in-vm-hold.py ${port} 300 held > /dev/null 2>&1 & echo $! > hold.pid) && for i in $(seq 1 200); do [ -e held ] && break; sleep 0.1; done; cat held`,
    );
    try {
      assert.equal(held, '300');
      const added = () =>
        [...outsideVmCgroups()].filter(([pid]) => !before.has(pid)).map(([, name]) => name);
      // A relay lives as long as its connection is held; the command that started the holder
      // may take a moment to end (its bwrap, seen outside the VM's cgroup while it goes), so
      // only what stays counts: the answer is the last look, taken once two looks 200 ms
      // apart found nothing, or after 10 s.
      let left = added();
      for (let i = 0; i < 50; i++) {
        if (left.length === 0) {
          await sleep(200);
          left = added();
          if (left.length === 0) break;
        } else {
          await sleep(200);
          left = added();
        }
      }
      assert.deepEqual(left, []);
    } finally {
      await ok('ssh gamma kill $(cat hold.pid); rm -f held');
    }
  });

  test('a VM’s bad-signature flood gets 429; another VM is counted apart, it and the host get their 200', async () => {
    // A well-formed token of a registered key, its signature broken: each costs a verification.
    const good = await svc.token(`{"exp":${FAR},"cmds":["whoami"]}`);
    const at = good.length - 10;
    const bad = good.slice(0, at) + (good[at] === 'A' ? 'B' : 'A') + good.slice(at + 1);
    const statuses = await ok(
      `ssh gamma for i in $(seq 1 80); do curl -s -o /dev/null -w %{http_code}, -X POST --oauth2-bearer ${bad} -d whoami http://127.0.0.1:${port}/exec; done`,
    );
    const counts = statuses.split(',').slice(0, -1);
    assert.ok(counts.includes('429'), statuses);
    assert.ok(
      counts.slice(0, 60).every((s) => s === '401'),
      statuses,
    );
    // Another VM is a client of its own: its own failures are its own, not the flood's.
    // (Ten at once: a budget shared with the flood would have refilled one a second at most.)
    const otherVmBad = await ok(
      `ssh delta for i in $(seq 1 10); do curl -s -o /dev/null -w %{http_code}, -X POST --oauth2-bearer ${bad} -d whoami http://127.0.0.1:${port}/exec; done`,
      other,
    );
    assert.equal(otherVmBad, '401,'.repeat(10));
    const theirs = await svc.token(`{"exp":${FAR},"cmds":["whoami"]}`, other);
    const fromOtherVm = await ok(
      `ssh delta curl -s -o /dev/null -w %{http_code} -X POST --oauth2-bearer ${theirs} -d whoami http://127.0.0.1:${port}/exec`,
      other,
    );
    assert.equal(fromOtherVm, '200');
    const fromHost = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${good}` },
      body: 'whoami',
    });
    assert.equal(fromHost.status, 200);
  });

  test('a proxied request the VM forwards back to the server ends at once: 508, bounded processes and descriptors', async () => {
    await ok('share set-public gamma');
    await ok(
      `ssh gamma ${scriptInto('in-vm-forwarder.py')} && (setsid python3 in-vm-forwarder.py 8000 ${port} > /dev/null 2>&1 & echo $! > forwarder.pid) && for i in $(seq 1 300); do curl -s -o /dev/null http://127.0.0.1:8000/healthz && break; sleep 0.1; done`,
    );
    const processes = outsideVmCgroups();
    const descriptors = readdirSync('/proc/self/fd').length;
    const answer = await curl(`http://gamma.localhost:${port}/`, ['-m', '20']);
    assert.deepEqual([answer.status, answer.body], [508, '{"error":"proxy loop"}\n']);
    // At most the door's helper into the VM is new; a loop would have added one per hop.
    const added = [...outsideVmCgroups()].filter(([pid]) => !processes.has(pid));
    assert.ok(added.length <= 1, JSON.stringify(added));
    assert.ok(readdirSync('/proc/self/fd').length - descriptors < 40);
    await ok('ssh gamma kill $(cat forwarder.pid)');
  });

  test('200 proxied requests leave no relay process: the door’s helper alone, ended once idle', async () => {
    await ok('share set-public gamma');
    await ok(
      'ssh gamma (setsid python3 -m http.server 8000 > /dev/null 2>&1 & echo $! > http.pid) && for i in $(seq 1 300); do curl -s -o /dev/null http://127.0.0.1:8000/ && break; sleep 0.1; done',
    );
    const before = outsideVmCgroups();
    const url = `http://gamma.localhost:${port}/`;
    // Twenty at a time, so that the proxy makes several connections into the VM.
    const statuses = await run('curl', [
      '-s',
      '-Z',
      '--parallel-max',
      '20',
      '-w',
      '%{http_code},',
      ...Array.from({ length: 200 }, () => ['-o', '/dev/null', url]).flat(),
    ]);
    assert.equal(statuses.stdout, '200,'.repeat(200));
    const added = () => [...outsideVmCgroups()].filter(([pid]) => !before.has(pid));
    // While connections are being made, at most the door's helper into the VM is new.
    const during = added();
    assert.ok(
      during.length <= 1 && during.every(([, name]) => name === 'node'),
      JSON.stringify(during),
    );
    // It ends once it has been idle 3 s; nothing else stays.
    for (let i = 0; i < 300 && added().length > 0; i++) await sleep(100);
    assert.deepEqual(added(), []);
    await ok('ssh gamma kill $(cat http.pid)');
  });
});

/**
 * The host processes that belong to the server or its VMs but not to a VM's cgroups: the
 * server's descendants and every process running as one of the VMs' host ids (ranges start at
 * 2^28), outside any cgroup of a VM (`vm-…`), by pid, with their names.
 */
function outsideVmCgroups(): Map<number, string> {
  const parents = new Map<number, number>();
  const found = new Map<number, string>();
  const read = (pid: string, file: string) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'utf8');
    } catch {
      return '';
    }
  };
  const pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  for (const pid of pids) {
    const stat = read(pid, 'stat');
    parents.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) {
      if (p === process.pid) return true;
    }
    return false;
  };
  for (const pid of pids) {
    const uid = Number(/^Uid:\s+(\d+)/m.exec(read(pid, 'status'))?.[1] ?? -1);
    if (!(uid >= 2 ** 28 || descends(Number(pid)))) continue;
    if (/\/vm-[0-9a-f]+/.test(read(pid, 'cgroup'))) continue;
    const stat = read(pid, 'stat');
    if (stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
    found.set(Number(pid), read(pid, 'comm').trim());
  }
  return found;
}
