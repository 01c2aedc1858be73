// The check of `integrations add` on untrusted targets (SPEC §6: refused "whatever the
// spelling"): an address written in any form a WHATWG URL accepts for it (decimal, hex or
// octal parts, one to four parts, a trailing dot, percent-encoding, full-width characters,
// IPv4-mapped and long IPv6 forms) is refused exactly when the address is private, with one
// 422 line naming the normalised host. Literals only: no resolver is asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import {
  PRIVATE_TARGET_REASON,
  refuseForbiddenTarget,
  type TargetPolicy,
} from '../../../../src/service/integrations/target-policy.js';

const PORT = 8443;
/** Listeners elsewhere, on ports the targets never use: only the private rule speaks. */
const POLICY: TargetPolicy = {
  endpoints: { http: 'http://127.0.0.1:1', reflection: 'http://127.0.0.1:2', ssh: null },
  allowPrivateTargets: false,
};

const dotted = (n: number) => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
const numberOf = (address: string) =>
  address.split('.').reduce((n, part) => n * 256 + Number(part), 0);

const V4_ENTRIES = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .filter((entry) => entry.family === 'IPv4');
/** The host's IPv4 addresses and, for networks wider than /31, their broadcast addresses. */
const OWN_V4 = V4_ENTRIES.flatMap(({ address, netmask }) => {
  const mask = numberOf(netmask);
  const broadcast = ((numberOf(address) & mask) | (~mask >>> 0)) >>> 0;
  return mask >>> 0 >= 0xfffffffe ? [address] : [address, dotted(broadcast)];
});

/** The test's own statement of the IPv4 rule, independent of the code under test. */
function privateV4(n: number): boolean {
  const [a, b] = [n >>> 24, (n >>> 16) & 255];
  return (
    a === 0 ||
    a === 127 ||
    a >= 224 ||
    (a === 169 && b === 254) ||
    dotted(n) === '100.100.100.200' ||
    OWN_V4.includes(dotted(n))
  );
}

const privateV4Number = fc.oneof(
  fc.integer({ min: 0x7f000000, max: 0x7fffffff }),
  fc.integer({ min: 0, max: 0x00ffffff }),
  fc.integer({ min: 0xa9fe0000, max: 0xa9feffff }),
  // Multicast 224/4 and reserved 240/4, with the limited broadcast at its end.
  fc.integer({ min: 0xe0000000, max: 0xffffffff }),
  fc.constantFrom(numberOf('100.100.100.200'), ...OWN_V4.map(numberOf)),
);
const anyV4Number = fc.integer({ min: 0, max: 0xffffffff });

type Radix = 'dec' | 'hex' | 'HEX' | 'oct';
const radix = fc.constantFrom<Radix>('dec', 'hex', 'HEX', 'oct');

function part(value: number, how: Radix, zeros: number): string {
  if (how === 'dec') return String(value);
  if (how === 'oct') return `0${'0'.repeat(zeros)}${value.toString(8)}`;
  const digits = `${'0'.repeat(zeros)}${value.toString(16)}`;
  return how === 'hex' ? `0x${digits}` : `0X${digits.toUpperCase()}`;
}

/** `n` as WHATWG's IPv4 parser reads it: the last of `count` parts holds the remaining bytes. */
const v4Spelling = (n: number) =>
  fc
    .record({
      count: fc.integer({ min: 1, max: 4 }),
      radixes: fc.array(radix, { minLength: 4, maxLength: 4 }),
      zeros: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 }),
      trailingDot: fc.boolean(),
      encoding: fc.constantFrom('plain', 'percent', 'fullwidth'),
    })
    .map(({ count, radixes, zeros, trailingDot, encoding }) => {
      const bytes = [24, 16, 8, 0].map((shift) => (n >>> shift) & 255);
      const parts = bytes.slice(0, count - 1);
      const lastBytes = 4 - (count - 1);
      const last = n % 2 ** (8 * lastBytes);
      const text = [...parts, last]
        .map((value, i) => part(value, radixes[i]!, zeros[i]!))
        .join('.');
      const host = trailingDot ? `${text}.` : text;
      if (encoding === 'percent') return host.replace(/[0-9]/g, (d) => `%3${d}`);
      if (encoding === 'fullwidth') {
        // IDNA maps full-width digits, letters and the ideographic full stop to ASCII.
        return host.replace(/[0-9a-zA-Z.]/g, (c) =>
          c === '.' ? '\u3002' : String.fromCharCode(c.charCodeAt(0) + 0xfee0),
        );
      }
      return host;
    });

/** `n` as an IPv4-mapped IPv6 literal in a few of its spellings. */
const mappedSpelling = (n: number) =>
  fc.constantFrom(
    `[::ffff:${dotted(n)}]`,
    `[::FFFF:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}]`,
    `[0:0:0:0:0:ffff:${dotted(n)}]`,
    `[0000:0000:0000:0000:0000:FFFF:${(n >>> 16).toString(16).padStart(4, '0')}:${(n & 0xffff).toString(16).padStart(4, '0')}]`,
  );

const privateV6 = fc.oneof(
  fc.constantFrom('[::1]', '[0::1]', '[0:0:0:0:0:0:0:1]', '[::0:1]', '[::]', '[0:0::0]'),
  fc
    .tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), fc.integer({ min: 0, max: 0xffff }))
    .map(([head, tail]) => `[${head.toString(16)}::${tail.toString(16)}]`),
  anyV4Number.map((n) => `[::${dotted(n)}]`),
  // Multicast ff00::/8, any scope and group.
  fc
    .tuple(fc.integer({ min: 0xff00, max: 0xffff }), fc.integer({ min: 0, max: 0xffff }))
    .map(([head, tail]) => `[${head.toString(16)}::${tail.toString(16)}]`),
);

async function outcome(host: string): Promise<{ refused: boolean; message?: string }> {
  try {
    await refuseForbiddenTarget(`http://${host}:${PORT}/v1`, POLICY);
    return { refused: false };
  } catch (error) {
    assert.ok(error instanceof ExectlError && error.status === 422, String(error));
    return { refused: true, message: error.message };
  }
}

test('any spelling of a private IPv4 address is refused, naming it in dotted form', async () => {
  await fc.assert(
    fc.asyncProperty(
      privateV4Number.chain((n) => fc.tuple(fc.constant(n), v4Spelling(n))),
      async ([n, host]) => {
        assert.equal(new URL(`http://${host}/`).hostname, dotted(n), host);
        assert.deepEqual(await outcome(host), {
          refused: true,
          message: `invalid target "http://${dotted(n)}:${PORT}": ${PRIVATE_TARGET_REASON}`,
        });
      },
    ),
    { numRuns: 500 },
  );
});

test('any spelling of any IPv4 address is refused exactly when the address is private', async () => {
  await fc.assert(
    fc.asyncProperty(
      anyV4Number.chain((n) => fc.tuple(fc.constant(n), v4Spelling(n))),
      async ([n, host]) => {
        assert.equal((await outcome(host)).refused, privateV4(n), `${host} is ${dotted(n)}`);
      },
    ),
    { numRuns: 500 },
  );
});

test('IPv4-mapped IPv6 follows the IPv4 rule; IPv6 loopback, unspecified, link-local, multicast refused', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc
        .oneof(privateV4Number, anyV4Number)
        .chain((n) => fc.tuple(fc.constant(n), mappedSpelling(n))),
      async ([n, host]) => {
        const shown = new URL(`http://${host}/`).host;
        assert.match(shown, /^\[::ffff:[0-9a-f:]+\]$/, host);
        const expected = privateV4(n)
          ? {
              refused: true,
              message: `invalid target "http://${shown}:${PORT}": ${PRIVATE_TARGET_REASON}`,
            }
          : { refused: false };
        assert.deepEqual(await outcome(host), expected, `${host} is ${dotted(n)}`);
      },
    ),
    { numRuns: 300 },
  );
  await fc.assert(
    fc.asyncProperty(privateV6, async (host) => {
      assert.equal((await outcome(host)).refused, true, host);
    }),
    { numRuns: 300 },
  );
});

test('with allowPrivateTargets every spelling is accepted', async () => {
  const allowing = { ...POLICY, allowPrivateTargets: true };
  await fc.assert(
    fc.asyncProperty(fc.oneof(privateV4Number.chain(v4Spelling), privateV6), async (host) => {
      await refuseForbiddenTarget(`http://${host}:${PORT}/`, allowing);
    }),
    { numRuns: 300 },
  );
});
