// `domain add`'s names are hostile input that becomes a Host the proxy routes: a table of the
// names it takes and refuses, and a property: for ANY text it returns a plain DNS name or
// throws a 422, never anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import { parseCustomDomain } from '../../../../src/service/rules/custom-domain.js';

const OWN = ['localhost', 'vms.example.net'];
const INVALID = (text: string) =>
  `invalid domain ${JSON.stringify(text)}: use a DNS name such as app.example.com (letters, digits, dashes; "*." in front for a wildcard)`;
const OWN_NAME = (text: string) =>
  `domain ${JSON.stringify(text)} is one of the service's own names: use a domain of your own`;

const rows: {
  text: string;
  wildcard?: boolean;
  want: { domain: string; wildcard: boolean } | string;
}[] = [
  { text: 'app.example.com', want: { domain: 'app.example.com', wildcard: false } },
  { text: 'App.Example.COM', want: { domain: 'app.example.com', wildcard: false } },
  { text: 'example.com', wildcard: true, want: { domain: 'example.com', wildcard: true } },
  { text: '*.example.com', want: { domain: 'example.com', wildcard: true } },
  { text: 'xn--bcher-kva.example', want: { domain: 'xn--bcher-kva.example', wildcard: false } },
  { text: 'a-1.b2.io', want: { domain: 'a-1.b2.io', wildcard: false } },
  { text: 'com', want: INVALID('com') },
  { text: '', want: INVALID('') },
  { text: 'example.com.', want: INVALID('example.com.') },
  { text: '.example.com', want: INVALID('.example.com') },
  { text: 'a..example.com', want: INVALID('a..example.com') },
  { text: '-a.example.com', want: INVALID('-a.example.com') },
  { text: 'a-.example.com', want: INVALID('a-.example.com') },
  { text: 'a_b.example.com', want: INVALID('a_b.example.com') },
  { text: '127.0.0.1', want: INVALID('127.0.0.1') },
  { text: '[::1]', want: INVALID('[::1]') },
  { text: 'example.com:80', want: INVALID('example.com:80') },
  { text: 'a b.example.com', want: INVALID('a b.example.com') },
  { text: 'evil.com\r\nX-Exectl-Email: a@b', want: INVALID('evil.com\r\nX-Exectl-Email: a@b') },
  { text: '**.example.com', want: INVALID('**.example.com') },
  { text: 'a.*.example.com', want: INVALID('a.*.example.com') },
  { text: `${'a'.repeat(64)}.com`, want: INVALID(`${'a'.repeat(64)}.com`) },
  { text: `${'a.'.repeat(127)}com`, want: INVALID(`${'a.'.repeat(127)}com`) },
  { text: 'web.localhost', want: OWN_NAME('web.localhost') },
  { text: 'vms.example.net', want: OWN_NAME('vms.example.net') },
  { text: 'x.vms.example.net', want: OWN_NAME('x.vms.example.net') },
  // A wildcard over the service's own names would take them from it.
  { text: '*.example.net', want: OWN_NAME('*.example.net') },
];

test('parseCustomDomain: the names it takes and refuses', () => {
  for (const row of rows) {
    const parse = () => parseCustomDomain(row.text, row.wildcard ?? false, OWN);
    if (typeof row.want === 'string') {
      assert.throws(parse, { code: 'command_failed', message: quoteCut(row.want) }, row.text);
    } else {
      assert.deepEqual(parse(), row.want, row.text);
    }
  }
});

/** Messages quote at most 64 characters of the input (rules/validate.ts's quote). */
function quoteCut(message: string): string {
  return message.replace(/"((?:[^"\\]|\\.)*)"/, (all, inner: string) => {
    const text = JSON.parse(all) as string;
    return text.length > 64 ? JSON.stringify(`${text.slice(0, 64)}...`) : `"${inner}"`;
  });
}

test('parseCustomDomain: any text gives a plain DNS name or a 422', () => {
  const chars = fc.constantFrom(...'abcz09-.*_:/ \r\n\u0000é[]AZ'.split(''));
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.string({ unit: chars, maxLength: 300 })),
      fc.boolean(),
      (text, wildcard) => {
        let parsed: { domain: string; wildcard: boolean };
        try {
          parsed = parseCustomDomain(text, wildcard, OWN);
        } catch (error) {
          assert.ok(error instanceof ExectlError && error.status === 422, String(error));
          return;
        }
        assert.match(parsed.domain, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
        assert.ok(parsed.domain.length <= 253);
        assert.ok(!parsed.domain.endsWith('localhost'));
      },
    ),
    { numRuns: 2000 },
  );
});
