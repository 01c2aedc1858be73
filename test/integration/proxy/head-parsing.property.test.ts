// The VM proxy parses requests itself (Node's llhttp, http-parser.ts): random request heads go
// to it and to a real node:http server, and the proxy must be at least as strict. Every head
// node:http refuses, the proxy refuses; every head the proxy accepts, node:http accepts with the
// same method, URL and raw headers. The proxy may refuse more only for its own documented rules
// (wellFramed: one Host, no more header lines than node:http keeps).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createParser, type ParsedHead } from '../../../src/service/proxy/http-parser.js';
import { wellFramed } from '../../../src/service/proxy/proxy-connection.js';
import { BranchShare } from '../../helpers/branch-share.js';

type Verdict = { accepted: false } | { accepted: true; method: string; url: string; raw: string[] };

let server: Server;
let port: number;
const verdicts = new Map<string, (verdict: Verdict) => void>();

before(async () => {
  server = createServer((req, res) => {
    const id = req.headers['x-case'];
    res.end();
    const report = typeof id === 'string' ? verdicts.get(id) : undefined;
    report?.({ accepted: true, method: req.method!, url: req.url!, raw: req.rawHeaders });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

/** node:http's verdict on `head` (sent alone, then the client's end). */
async function nodeVerdict(head: string, id: string): Promise<Verdict> {
  const socket = connect(port, '127.0.0.1');
  const verdict = new Promise<Verdict>((resolve) => {
    verdicts.set(id, resolve);
    // Refused, or never complete: the connection ends without the request reaching the handler.
    socket.on('close', () => resolve({ accepted: false }));
  });
  socket.on('error', () => {});
  socket.resume();
  socket.end(Buffer.from(head, 'latin1'));
  const result = await verdict;
  verdicts.delete(id);
  socket.destroy();
  return result;
}

/** The proxy's verdict: a head llhttp completed without an error in the same bytes. */
function proxyVerdict(head: string): { verdict: Verdict; parsed: ParsedHead | null } {
  let parsed: ParsedHead | null = null;
  const parser = createParser('request', {
    // 0, as proxy-connection.ts answers: llhttp goes on to check the body's framing.
    head: (h) => {
      parsed ??= h;
      return 0;
    },
    body: () => {},
    complete: () => {},
  });
  const result = parser.execute(Buffer.from(head, 'latin1'));
  parser.free();
  // The proxy's own rules (one Host, and a Host on HTTP/1.1) come on top of llhttp's.
  if (typeof result !== 'number' || parsed === null || !wellFramed(parsed)) {
    return { verdict: { accepted: false }, parsed };
  }
  const h: ParsedHead = parsed;
  return { verdict: { accepted: true, method: h.method, url: h.url, raw: h.rawHeaders }, parsed };
}

/** Mostly well-formed pieces, sometimes a broken one: most heads differ in one place. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: bad, weight: 1 });
const token = mostly(
  fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'M-SEARCH'),
  fc.constantFrom('get', 'G ET', 'GET\t', '', 'GET/'),
);
const target = mostly(
  fc.constantFrom('/', '/a?b=1', '*', 'http://x/y', '/%zz', '//'),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }).map((s) => `/${s}`),
);
const version = mostly(
  fc.constantFrom('HTTP/1.1', 'HTTP/1.0'),
  fc.constantFrom('HTTP/2.0', 'HTTP/1.1 ', 'HTTP/1', 'http/1.1'),
);
const name = mostly(
  fc.constantFrom('Host', 'Content-Length', 'Transfer-Encoding', 'X-A', 'X_A', 'Connection'),
  fc.oneof(
    fc.constantFrom('Host ', ' Host', 'X A', 'X:A', 'X\tA', ''),
    fc.string({ unit: 'binary-ascii', maxLength: 6 }),
  ),
);
const value = mostly(
  fc.constantFrom('vm.localhost', 'chunked', '5', '0', ' 5', 'chunked, gzip', 'close', '', 'é'),
  fc.oneof(
    fc.constantFrom('a\r\n b', 'a\nb', 'a\rb', 'a\u0000b', 'v\u007f'),
    fc.string({ unit: 'binary-ascii', maxLength: 10 }),
  ),
);
const separator = mostly(fc.constantFrom(': ', ':'), fc.constantFrom(' : ', ':\t', ' :'));
const eol = mostly(fc.constant('\r\n'), fc.constantFrom('\n', '\r', '\r\r\n'));
const line = fc.tuple(name, separator, value, eol).map(([n, s, v, e]) => `${n}${s}${v}${e}`);
const head = fc
  .tuple(
    token,
    target,
    version,
    eol,
    mostly(fc.constant(true), fc.constant(false)),
    fc.array(line, { maxLength: 4 }),
    eol,
  )
  .map(([m, t, v, e1, host, lines, end]) => ({
    start: `${m} ${t} ${v}${e1}`,
    lines: [...(host ? ['Host: vm.localhost\r\n'] : []), ...lines],
    end,
  }));

test('the proxy parses request heads at least as strictly as node:http, and the same', async (t) => {
  const share = new BranchShare();
  let n = 0;
  await fc.assert(
    fc.asyncProperty(head, async ({ start, lines, end }) => {
      const id = `c${n++}`;
      const text = `${start}X-Case: ${id}\r\n${lines.join('')}${end}`;
      const ours = proxyVerdict(text);
      const theirs = await nodeVerdict(text, id);
      if (!theirs.accepted) {
        assert.equal(
          ours.verdict.accepted,
          false,
          `node:http refuses, the proxy accepts: ${JSON.stringify(text)}`,
        );
        return share.refused();
      }
      // Refused by the proxy alone: its own rules (wellFramed), or llhttp failing on bytes after
      // a head node:http already served.
      if (!ours.verdict.accepted) return share.refused();
      share.accepted();
      assert.deepEqual(ours.verdict, theirs, JSON.stringify(text));
    }),
    { numRuns: 300 },
  );
  share.assertFloor((message) => t.diagnostic(message));
});
