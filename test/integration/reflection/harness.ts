// A real service for the reflection tests: commands through POST /exec with real tokens, and
// plain HTTP requests to the reflection listener, as a program in a VM makes them.
import assert from 'node:assert/strict';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { ServiceConfig } from '../../../src/service/config.js';
import type { GeneratedKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;

/** Every command these tests run, so one token per account serves them all. */
const CMDS = [
  'new',
  'rm',
  'rename',
  'tag',
  'comment',
  'share port',
  'ssh',
  'integrations list',
  'integrations add',
  'integrations remove',
  'integrations rename',
  'integrations attach',
  'integrations detach',
];

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ReflectionHarness {
  svc: TestService;
  /** Runs a command line as the owner (or as `as`) and returns its JSON; fails on non-200. */
  exec(line: string, as?: GeneratedKey): Promise<unknown>;
  /** Runs a command line as the owner (or `as`) and returns the raw answer, any status. */
  execRaw(line: string, as?: GeneratedKey): Promise<HttpAnswer>;
  /** The VM's `{reflection_url}`, exactly as the VM gets it in EXECTL_REFLECTION_URL. */
  reflectionUrl(vm: string): string;
  /** One HTTP request (GET unless told), answered in full. */
  http(url: string, init?: HttpInit): Promise<HttpAnswer>;
  /** GET `{reflection_url}<path>` and parse the 200 JSON answer. */
  reflect(vm: string, path: string): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startReflectionHarness(
  overrides: Partial<ServiceConfig> = {},
): Promise<ReflectionHarness> {
  const svc = await startTestService(overrides);
  const tokens = new Map<GeneratedKey, string>();
  const tokenOf = async (key: GeneratedKey) => {
    let token = tokens.get(key);
    if (token === undefined) {
      token = await svc.token(JSON.stringify({ exp: FAR, cmds: CMDS }), key);
      tokens.set(key, token);
    }
    return token;
  };
  const http: ReflectionHarness['http'] = async (url, init = {}) => {
    const res = await request(url, {
      method: (init.method ?? 'GET') as 'GET',
      headers: init.headers ?? {},
      body: init.body ?? null,
    });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  };
  const harness: ReflectionHarness = {
    svc,
    async execRaw(line, as = svc.owner.key) {
      return http(`${svc.url}/exec`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await tokenOf(as)}` },
        body: line,
      });
    },
    async exec(line, as) {
      const r = await harness.execRaw(line, as);
      assert.equal(r.status, 200, `${line}: ${r.text}`);
      return JSON.parse(r.text);
    },
    reflectionUrl(vm) {
      const record = svc.service.store.getVmByName(vm);
      assert.ok(record !== undefined, `vm ${vm} exists`);
      return `${svc.service.endpoints.reflection}/vm/${record.reflectionSecret}`;
    },
    http,
    async reflect(vm, path) {
      const r = await http(`${harness.reflectionUrl(vm)}${path}`);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      assert.equal(r.headers['content-type'], 'application/json');
      return JSON.parse(r.text);
    },
    stop: () => svc.stop(),
  };
  return harness;
}

/** What the echo upstream saw of one request. */
export interface EchoedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local upstream for integrations: it records each request and echoes it back. */
export interface EchoUpstream {
  url: string;
  requests: EchoedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a node:http server on 127.0.0.1:0 that records every request and answers 201 with
 * `{"method","url","headers","body"}` (the headers it got, as a VM's program would see them
 * echoed) plus `X-Upstream: echo`. `takeOver` may answer a request itself (streaming tests):
 * it returns true when it did.
 */
export async function startEchoUpstream(
  takeOver?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<EchoUpstream> {
  const requests: EchoedRequest[] = [];
  const server: Server = createServer((req, res) => {
    if (takeOver?.(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: EchoedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'echo' });
      res.end(JSON.stringify(seen));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
