// Shared by the command tests: a real SQLite store in a temp dir, the real registry, and the
// real dispatcher, driven exactly as the /exec front end drives them.
import { SignIns } from '../../../../src/service/dashboard/sign-ins.js';
import assert from 'node:assert/strict';
import { ExectlError } from '../../../../src/errors.js';
import { buildRegistry } from '../../../../src/service/commands/index.js';
import { emojiFor } from '../../../../src/service/rules/emoji.js';
import type { ServiceConfig } from '../../../../src/service/config.js';
import type { ServiceDeps } from '../../../../src/service/deps.js';
import { reflectionUrlOf } from '../../../../src/service/reflection/urls.js';
import { dispatch } from '../../../../src/service/dispatch/dispatcher.js';
import { renderText } from '../../../../src/text-views/generic.js';
import type { Principal } from '../../../../src/service/dispatch/types.js';
import {
  openStore,
  type Account,
  type NewVm,
  type Store,
  type VmRecord,
} from '../../../../src/service/store/index.js';
import { startVmMachines, type RunningVmMachines } from '../../../../src/service/vm/index.js';
import { VmAddressListeners } from '../../../../src/service/ssh/index.js';
import { createMemorySigner, type MemorySigner } from '../../../helpers/signers.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { testServiceConfig } from '../../../helpers/config.js';

/** The instant every fixture clock starts at (unix 1740830400). */
export const T0 = '2025-03-01T12:00:00Z';
export const T0_SECONDS = Date.parse(T0) / 1000;

/** One account with one registered in-memory ed25519 key, calling with a given cmds list. */
export interface User {
  account: Account;
  signer: MemorySigner;
  principal: Principal;
}

export interface Failure {
  status: number;
  message: string;
  body: unknown;
}

export interface CommandFixture {
  dir: TempDir;
  store: Store;
  /** The real VM machinery, `process` runtime, VM disks under `dir/vms/<id>`. */
  machines: RunningVmMachines;
  deps: ServiceDeps;
  /** Moves the clock of both the commands and the store. */
  advance(seconds: number): void;
  /** Creates an account `email` with one key named `default`. */
  addUser(email: string): User;
  /** A VM record owned by `user`, made directly in the store (no machine). */
  addVm(user: User, name: string, extra?: Partial<NewVm>): VmRecord;
  /** Runs `line` as `user` and returns its JSON data; fails the test on an error. */
  run(user: User, line: string): Promise<unknown>;
  /** Runs `line` as `user`, expecting an ExectlError; returns its status, message and body. */
  fail(user: User, line: string): Promise<Failure>;
  /** The readable text form of `line`'s answer, as the SSH front end shows it. */
  text(user: User, line: string): Promise<string>;
  cleanup(): Promise<void>;
}

export interface FixtureOptions {
  config?: Partial<ServiceConfig>;
  ssh?: ServiceDeps['endpoints']['ssh'];
}

export async function openCommandFixture(options: FixtureOptions = {}): Promise<CommandFixture> {
  const dir = await createTempDir('cmds');
  let ms = Date.parse(T0);
  const store = openStore(dir.join('exectl.db'), { now: () => new Date(ms) });
  // Fixed ports: these tests listen on nothing, and commands print the addresses.
  const config = testServiceConfig({
    listen: { host: '127.0.0.1', port: 7070 },
    sshListen: { host: '127.0.0.1', port: 7022 },
    reflectionListen: { host: '127.0.0.1', port: 7071 },
    dataDir: dir.path,
    ...options.config,
  });
  const endpoints: ServiceDeps['endpoints'] = {
    http: 'http://127.0.0.1:7070',
    ssh: options.ssh === undefined ? { host: '127.0.0.1', port: 7022 } : options.ssh,
    reflection: 'http://127.0.0.1:7071',
  };
  const machines = await startVmMachines({
    config,
    store,
    endpoints,
    reflectionUrl: (vm) => reflectionUrlOf(endpoints.reflection, vm.reflectionSecret),
  });
  const deps: ServiceDeps = {
    store,
    machines,
    config,
    endpoints,
    signIns: new SignIns(() => ms),
    // Never served: these VMs are reached as vm+<name>@host.
    vmSshAddresses: new VmAddressListeners(false, store, config.log),
    now: () => ms,
  };
  const registry = buildRegistry();

  const dispatchAs = (user: User, line: string) =>
    dispatch(registry, line, user.principal, deps, { deadlineMs: 30_000, requestId: 'req-test' });

  const fixture: CommandFixture = {
    dir,
    store,
    machines,
    deps,
    advance(seconds) {
      ms += seconds * 1000;
    },
    addUser(email) {
      const signer = createMemorySigner('ed25519', email);
      const key = signer.publicKey;
      const account = store.createAccount(email, [
        {
          fingerprint: key.fingerprint,
          name: 'default',
          publicKey: key.toOpenSsh(),
          keyType: key.type,
        },
      ]);
      const principal: Principal = {
        accountId: account.id,
        email: account.email,
        userId: account.userId,
        keyFingerprint: key.fingerprint,
        cmds: null,
        tag: null,
        exp: null,
        via: 'token',
      };
      return { account, signer, principal };
    },
    addVm(user, name, extra = {}) {
      return store.createVm({
        accountId: user.account.id,
        name,
        emoji: emojiFor(name),
        status: 'running',
        ...extra,
      });
    },
    async run(user, line) {
      const { output } = await dispatchAs(user, line);
      assert.equal(output.kind, 'json');
      // What the client receives: the data through JSON, so undefined fields would show.
      return JSON.parse(JSON.stringify(output.data));
    },
    async fail(user, line) {
      try {
        await dispatchAs(user, line);
      } catch (error) {
        assert.ok(error instanceof ExectlError, `expected an ExectlError, got ${String(error)}`);
        return { status: error.status, message: error.message, body: error.body };
      }
      assert.fail(`"${line}" succeeded`);
    },
    async text(user, line) {
      const result = await dispatchAs(user, line);
      assert.equal(result.output.kind, 'json');
      return renderText(result.output.data, result.textRenderer);
    },
    async cleanup() {
      await machines.shutdown();
      store.close();
      await dir.remove();
    },
  };
  return fixture;
}
