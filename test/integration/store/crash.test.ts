// SPEC §7: "A kill -9 at any moment loses no acknowledged change." A real child process writes
// through the store and acknowledges each write on stdout; it is SIGKILLed at a random moment,
// and a fresh open must show every acknowledged write, complete.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomInt } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { openStore } from '../../../src/service/store/index.js';

const WRITER = fileURLToPath(new URL('./fixtures/ack-writer.ts', import.meta.url));
let dir: TempDir;
const children = new Set<ChildProcess>();
before(async () => {
  dir = await createTempDir('crash');
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await dir.remove();
});

/** Runs the writer until it has acknowledged `killAfter` writes, SIGKILLs it, returns the acks. */
async function writeUntilKilled(dbPath: string, killAfter: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dbPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const acks: number[] = [];
  const exited = once(child, 'exit');
  for await (const line of createInterface({ input: child.stdout! })) {
    acks.push(Number(/^ack (\d+)$/.exec(line)![1]));
    // A random extra pause puts the kill anywhere in the next write, not just between writes.
    if (acks.length === killAfter) setTimeout(() => child.kill('SIGKILL'), randomInt(3));
  }
  const [code, signal] = await exited;
  children.delete(child);
  assert.equal(signal, 'SIGKILL', `writer ended by itself (code ${code}): ${stderr}`);
  return acks;
}

test('every acknowledged write survives SIGKILL at a random moment', async () => {
  const dbPath = dir.join('exectl.db');
  const acknowledged: number[] = [];
  for (let round = 0; round < 4; round++) {
    const acks = await writeUntilKilled(dbPath, randomInt(5, 60));
    assert.ok(acks.length > 0);
    acknowledged.push(...acks);
  }
  // A write that was cut short (say the account was committed, its VM not yet) is not
  // acknowledged; the next round starts after it, so numbers only ever increase.
  assert.ok(
    acknowledged.every((n, i) => i === 0 || n > acknowledged[i - 1]!),
    `acks out of order: ${acknowledged.join(' ')}`,
  );

  const check = new Database(dbPath, { readonly: true });
  assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
  check.close();

  const store = openStore(dbPath);
  try {
    for (const n of acknowledged) {
      const account = store.findAccountByEmail(`user${n}@crash.test`);
      assert.ok(account, `account of ack ${n} is missing`);
      const vm = store.getVmByName(`vm-${n}`);
      assert.equal(vm?.accountId, account.id, `vm of ack ${n}`);
      assert.deepEqual(vm.tags, [`t${n}`], `tags of ack ${n}`);
      assert.deepEqual(
        store.listShares(vm.id).map((s) => s.email),
        [`friend${n}@crash.test`],
        `share of ack ${n}`,
      );
      assert.equal(store.getTeamOfAccount(account.id)?.role, 'owner', `team of ack ${n}`);
      assert.deepEqual(
        store.listIntegrations(account.id).map((i) => i.name),
        ['reflection'],
      );
    }
  } finally {
    store.close();
  }
});
