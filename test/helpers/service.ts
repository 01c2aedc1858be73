import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createService, type RunningService } from '../../src/service/index.js';
import type { ServiceConfig } from '../../src/service/config.js';
import { parsePublicKey } from '../../src/token/keys.js';
import { generateKey, mintWithShellRecipe, type GeneratedKey, type KeyKind } from './keys.js';
import { createTempDir, type TempDir } from './tmp.js';
import { testServiceConfig } from './config.js';
import { suiteFixture } from './suite-fixture.js';

/** A real service on loopback ports chosen by the OS, with one owner account and key. */
export interface TestService {
  service: RunningService;
  /** Base URL of the HTTP listener. */
  url: string;
  dir: TempDir;
  owner: { email: string; key: GeneratedKey };
  /** Every log line the service wrote, for assertions (e.g. no secrets). */
  logs: string[];
  /** Creates another account with its own fresh key. */
  addAccount(email: string, kind?: KeyKind): Promise<GeneratedKey>;
  /** A svc0 token made with the SPEC §1.1 shell recipe (real ssh-keygen). */
  token(payload: string, key?: GeneratedKey, namespace?: string): Promise<string>;
  /** Stops the service and deletes its folder. */
  stop(): Promise<void>;
}

/**
 * The test service of the file or `describe` block it is called in (at its top level): started
 * before its tests, stopped and removed after them, with no hook of the caller's.
 */
export function useTestService(overrides: Partial<ServiceConfig> = {}): TestService {
  return suiteFixture(
    () => startTestService(overrides),
    (svc) => svc.stop(),
  );
}

/**
 * Starts a service in a fresh data folder; for one test (`t.after(() => svc.stop())`), or use
 * {@link useTestService} for a whole file.
 */
export async function startTestService(
  overrides: Partial<ServiceConfig> = {},
): Promise<TestService> {
  const dir = await createTempDir('svc');
  const dataDir = dir.join('data');
  await mkdir(dataDir);
  const logs: string[] = [];
  const config = testServiceConfig({ dataDir, log: (line) => logs.push(line), ...overrides });
  const service = await createService(config);

  const addAccount = async (email: string, kind: KeyKind = 'ed25519') => {
    const key = await generateKey(dir.path, kind, { name: `id_${email.replace(/\W/g, '_')}` });
    const pub = parsePublicKey(key.publicKeyLine);
    service.store.createAccount(email, [
      {
        fingerprint: pub.fingerprint,
        name: 'default',
        publicKey: pub.toOpenSsh(),
        keyType: pub.type,
      },
    ]);
    return key;
  };
  const ownerKey = await addAccount('owner@example.com');

  return {
    service,
    url: service.endpoints.http,
    dir,
    owner: { email: 'owner@example.com', key: ownerKey },
    logs,
    addAccount,
    token: (payload, key = ownerKey, namespace = `v0@${config.domain}`) =>
      mintWithShellRecipe(key, payload, namespace),
    stop: async () => {
      await service.close();
      await dir.remove();
    },
  };
}

/**
 * A home folder in `service`'s temp dir (`<dir>/home`) whose `~/.ssh/id_ed25519` (and `.pub`)
 * is the owner's key: the built CLI run with this HOME signs as the owner by default.
 */
export async function homeWithOwnerKey(service: TestService): Promise<string> {
  const home = service.dir.join('home');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await copyFile(service.owner.key.path, join(home, '.ssh', 'id_ed25519'));
  await copyFile(service.owner.key.pubPath, join(home, '.ssh', 'id_ed25519.pub'));
  return home;
}
