// Errors that point at the real cause (SPEC §8): a --url copied from the curl example (ending
// in /exec), the SSH port given as --url, https:// against plain HTTP, and bad values in a
// profile, which name the profile file rather than --url or EXECTL_KEY.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';

let svc: TestService;
let home: string;
let config: string;

before(async () => {
  assertBuilt();
  svc = await startTestService({ sshListen: { host: '127.0.0.1', port: 0 } });
  home = svc.dir.join('home');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await copyFile(svc.owner.key.path, join(home, '.ssh', 'id_ed25519'));
  config = join(home, '.config', 'exectl', 'config.json');
  await mkdir(join(home, '.config', 'exectl'), { recursive: true });
  await writeFile(
    config,
    JSON.stringify({
      profiles: {
        curl: { url: `${svc.url}/exec` },
        nokey: { url: svc.url, key: '/nonexistent/key' },
      },
    }),
  );
});
after(() => svc.stop());

test('--url ending in /exec: says so and names the address to give', async () => {
  assertOneLineError(
    await exectl(['--url', `${svc.url}/exec`, 'run', 'whoami'], { home }),
    2,
    `--url "${svc.url}/exec" ends in /exec, which exectl adds itself — give the service's address: ${svc.url}`,
  );
});

test('--url at the SSH port: says it is an SSH port', async () => {
  const ssh = svc.service.endpoints.ssh!;
  const sshUrl = `http://${ssh.host}:${ssh.port}`;
  assertOneLineError(
    await exectl(['--url', sshUrl, 'run', 'whoami'], { home }),
    8,
    `cannot reach ${sshUrl}: that is an SSH port, not exectl's HTTP listener — give the HTTP address \`exectl serve\` prints (default http://127.0.0.1:7070); check --url / EXECTL_URL`,
  );
});

test('https:// against plain HTTP: says to use http://', async () => {
  const https = svc.url.replace(/^http:/, 'https:');
  assertOneLineError(
    await exectl(['--url', https, 'run', 'whoami'], { home }),
    8,
    `cannot reach ${https}: it speaks plain HTTP, not HTTPS — use http:// instead of https:// (or start exectl serve with --tls-cert/--tls-key); check --url / EXECTL_URL`,
  );
});

test("a profile's url and key: the message names the profile file", async () => {
  assertOneLineError(
    await exectl(['--profile', 'curl', 'run', 'whoami'], { home }),
    2,
    `url of profile "curl" in ${config} "${svc.url}/exec" ends in /exec, which exectl adds itself — give the service's address: ${svc.url}`,
  );
  assertOneLineError(
    await exectl(['--profile', 'nokey', 'run', 'whoami'], { home }),
    2,
    `cannot read key file /nonexistent/key (ENOENT) (the key of profile "nokey") — fix "key" of profile "nokey" in ${config}`,
  );
});
