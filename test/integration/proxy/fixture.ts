// A real service with VMs whose servers really run inside them, and real curl to reach them
// through the VM proxy. VMs share the host's network (process runtime, bwrap without a network
// namespace), so every VM server gets a free port of its own, set with `share port`.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import type { ServiceConfig } from '../../../src/service/config.js';
import { run, type GeneratedKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/** Far in the future, inside the allowed range of SPEC §1.3. */
export const FAR = 4_000_000_000;

/** An HTTP answer as curl received it. */
export interface CurlResult {
  status: number;
  /** Every header line in order, names lower-cased (repeated headers stay separate). */
  headerList: [string, string][];
  /** The last value of each header, by lower-cased name. */
  headers: Record<string, string>;
  body: string;
}

export interface ProxyFixture {
  svc: TestService;
  /** Port of the service's HTTP listener. */
  port: number;
  /** `http://<vm>.localhost:<port><path>`: curl resolves every `*.localhost` to loopback. */
  vmUrl(vm: string, path?: string): string;
  /** Runs a command line on /exec as `key`'s account (the owner by default); returns its JSON. */
  exec(line: string, key?: GeneratedKey): Promise<unknown>;
  /** Creates a VM owned by `key`'s account with a free default port, and returns that port. */
  createVm(name: string, key?: GeneratedKey): Promise<number>;
  /**
   * Starts `echo-server.mjs` (or another server file of this folder, `.py` with python3) in the
   * VM, in the background, and waits until it listens.
   */
  startEchoServer(vm: string, server?: VmServerFile): Promise<void>;
  /** Runs `command` in the VM (`/bin/sh -c`) and asserts that it exits 0. */
  runInVm(vm: string, command: string): Promise<string>;
  /** Waits until something accepts connections on `port` of the VM's own loopback. */
  waitForPort(port: number, logFile: string, vm: string): Promise<void>;
  /** A VM token (namespace `v0@<vm>.localhost`) made with the SPEC §1.1 shell recipe. */
  vmToken(vm: string, payload?: string, key?: GeneratedKey): Promise<string>;
  stop(): Promise<void>;
}

/** What the echo server saw, as it answers in JSON. */
export interface Echo {
  method: string;
  url: string;
  rawHeaders: string[];
  bodyBytes: number;
  bodySha256: string;
  /** The port of the connection it came on (the proxy's, or its relay's). */
  remotePort: number;
}

/** The servers this folder has for running inside a VM. */
export type VmServerFile =
  | 'echo-server.mjs'
  | 'closing-server.mjs'
  | 'zeros-server.mjs'
  | 'python-server.py'
  | 'raw-server.mjs';

/** The commands the fixture's own /exec tokens need. */
const FIXTURE_CMDS = [
  'new',
  'share port',
  'share add',
  'share remove',
  'share set-public',
  'share set-private',
  'svc0-to-svc1',
  'share add-link',
  'share remove-link',
  'share show',
  'domain add',
  'domain rm',
  'rm',
  'rename',
];

export async function startProxyFixture(
  overrides: Partial<ServiceConfig> = {},
): Promise<ProxyFixture> {
  const svc = await startTestService(overrides);
  const port = Number(new URL(svc.url).port);
  const execTokens = new Map<GeneratedKey, string>();
  const vmPorts = new Map<string, number>();

  const fixture: ProxyFixture = {
    svc,
    port,
    vmUrl: (vm, path = '/') => `http://${vm}.localhost:${port}${path}`,

    async exec(line, key = svc.owner.key) {
      let token = execTokens.get(key);
      if (token === undefined) {
        token = await svc.token(`{"exp":${FAR},"cmds":${JSON.stringify(FIXTURE_CMDS)}}`, key);
        execTokens.set(key, token);
      }
      const res = await fetch(`${svc.url}/exec`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: line,
      });
      const text = await res.text();
      assert.equal(res.status, 200, `${line}: ${text}`);
      return JSON.parse(text) as unknown;
    },

    async createVm(name, key) {
      await fixture.exec(`new --name ${name}`, key);
      const vmPort = await freePort();
      await fixture.exec(`share port ${name} ${vmPort}`, key);
      vmPorts.set(name, vmPort);
      return vmPort;
    },

    async runInVm(vm, command) {
      const record = svc.service.store.getVmByName(vm);
      assert.ok(record, `vm ${vm} exists`);
      const output: Buffer[] = [];
      const result = await svc.service.machines.exec(record, command, {
        signal: AbortSignal.timeout(20_000),
        onOutput: (chunk) => output.push(chunk),
      });
      const text = Buffer.concat(output).toString('utf8');
      assert.equal(result.exitCode, 0, `${command}: ${text}`);
      return text;
    },

    async startEchoServer(vm, server = 'echo-server.mjs') {
      const vmPort = vmPorts.get(vm);
      assert.ok(vmPort, `vm ${vm} was made by createVm`);
      const source = (await readFile(new URL(`./${server}`, import.meta.url))).toString('base64');
      await fixture.runInVm(
        vm,
        `printf %s ${source} | base64 -d > "$HOME/${server}" && ` +
          `(setsid nohup ${server.endsWith('.py') ? 'python3' : 'node'} "$HOME/${server}" ${vmPort} ` +
          `> "$HOME/echo.log" 2>&1 < /dev/null &)`,
      );
      await fixture.waitForPort(vmPort, 'echo.log', vm);
    },

    async waitForPort(vmPort, logFile, vm) {
      // Asked inside the VM (a machine VM's loopback is its own), by connecting only: a request
      // would be one more for the VM's server to log.
      const probe = `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${vmPort}' 2>/dev/null`;
      const waited = await fixture.runInVm(
        vm,
        `for i in $(seq 200); do if ${probe}; then echo up; exit 0; fi; sleep 0.05; done; echo down`,
      );
      if (waited === 'up\n') return;
      const log = await fixture.runInVm(vm, `cat "$HOME/${logFile}"`);
      assert.fail(`nothing listens on port ${vmPort} in vm ${vm}; its log:\n${log}`);
    },

    vmToken: (vm, payload = `{"exp":${FAR}}`, key = svc.owner.key) =>
      svc.token(payload, key, `v0@${vm}.localhost`),

    stop: () => svc.stop(),
  };
  return fixture;
}

/** One request with real curl; `args` come before the URL. */
export async function curl(url: string, args: readonly string[] = []): Promise<CurlResult> {
  const r = await run('curl', ['-sS', '-D', '-', '-o', '-', ...args, url]);
  assert.equal(r.code, 0, r.stderr);
  // Interim answers (100 Continue) come first; the final one is the last header block.
  const raw = r.stdout.replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).split('\r\n');
  const headerList: [string, string][] = head.slice(1).map((line) => {
    const i = line.indexOf(':');
    return [line.slice(0, i).toLowerCase(), line.slice(i + 1).trim()];
  });
  return {
    status: Number(head[0]!.split(' ')[1]),
    headerList,
    headers: Object.fromEntries(headerList),
    body: raw.slice(split + 4),
  };
}

/** curl's `-H` arguments for the preferred proxy header. */
export function withToken(token: string): string[] {
  return ['-H', `X-Exectl-Authorization: Bearer ${token}`];
}

/** The echo server's report of a request that reached it. */
export function echoOf(r: CurlResult): Echo {
  assert.equal(r.status, 201, r.body);
  return JSON.parse(r.body) as Echo;
}

/** Every value of header `name` in a raw header list, as the exact bytes that arrived. */
export function headerBytes(rawHeaders: readonly string[], name: string): Buffer[] {
  const values: Buffer[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === name.toLowerCase()) {
      values.push(Buffer.from(rawHeaders[i + 1]!, 'latin1'));
    }
  }
  return values;
}

/** The one value of header `name` as text, or undefined; fails when it came more than once. */
export function headerText(rawHeaders: readonly string[], name: string): string | undefined {
  const values = headerBytes(rawHeaders, name);
  assert.ok(values.length <= 1, `${name} arrived ${values.length} times`);
  return values[0]?.toString('utf8');
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
