// Properties of the integrations commands' parsers, which read untrusted arguments: for ANY
// input they return a value that obeys their rule or throw a 422 — and a header's value or a
// URL's password never appears in the message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import {
  checkHeaderLine,
  checkTarget,
  parseAttachmentSpec,
  parseReflectionFields,
} from '../../../../src/service/rules/integrations.js';
import { REFLECTION_FIELDS } from '../../../../src/service/store/index.js';
import { BranchShare } from '../../../helpers/branch-share.js';

/** Runs `fn`: a value, or the message of the 422 it threw (anything else fails the test). */
function attempt<T>(fn: () => T): { ok: true; value: T } | { ok: false; message: string } {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    assert.ok(error instanceof ExectlError && error.status === 422, String(error));
    return { ok: false, message: error.message };
  }
}

const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
);
const tokenChar = fc.constantFrom(..."!#$%&'*+.^_`|~09AZaz-".split(''));
const headerName = fc.oneof(
  fc.string({ unit: tokenChar, minLength: 1, maxLength: 20 }),
  fc.constantFrom('Host', 'CONNECTION', 'Content-Length', 'te', 'Authorization'),
  anyText,
);
const MARK = 'S3CR3T';

test('checkHeaderLine: accepted lines are "token: visible ASCII value"; values are never echoed', () => {
  fc.assert(
    fc.property(headerName, anyText, anyText, (name, before, after) => {
      const line = `${name}:${before}${MARK}${after}`;
      const result = attempt(() => checkHeaderLine(line));
      if (result.ok) {
        assert.equal(result.value, line);
        const colon = line.indexOf(':');
        assert.match(line.slice(0, colon), /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
        assert.match(line.slice(colon + 1), /^[\t\x20-\x7e]*$/);
      } else if (!name.includes(':') && !name.includes(MARK)) {
        assert.ok(!result.message.includes(MARK), result.message);
      }
    }),
    { numRuns: 3000 },
  );
});

test('checkHeaderLine: any string at all is a line or a 422', () => {
  fc.assert(
    fc.property(anyText, (text) => void attempt(() => checkHeaderLine(text))),
    {
      numRuns: 2000,
    },
  );
});

test('checkTarget: accepted targets are plain http(s) URLs; passwords are never echoed', () => {
  const host = fc.oneof(fc.domain(), fc.constantFrom('127.0.0.1', '[::1]', 'localhost:8080'));
  const target = fc.oneof(
    fc
      .tuple(fc.constantFrom('http', 'https', 'ftp', 'HTTP', 'javascript'), host, anyText)
      .map(([scheme, h, rest]) => `${scheme}://${h}${rest}`),
    fc.tuple(host, anyText).map(([h, user]) => `https://${encodeURIComponent(user)}:${MARK}@${h}/`),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    anyText,
  );
  fc.assert(
    fc.property(target, (text) => {
      const result = attempt(() => checkTarget(text));
      if (result.ok) {
        const url = new URL(result.value);
        assert.ok(url.protocol === 'http:' || url.protocol === 'https:', text);
        assert.equal(url.username + url.password + url.search + url.hash, '', text);
      } else {
        assert.ok(!result.message.includes(`:${MARK}`), result.message);
      }
    }),
    { numRuns: 3000 },
  );
});

test('parseAttachmentSpec: accepted specs are exactly auto:all, tag:<tag>, vm:<name>', (t) => {
  const share = new BranchShare();
  const spec = fc.oneof(
    fc.tuple(fc.constantFrom('auto:', 'tag:', 'vm:', 'Tag:', ''), anyText).map(([p, s]) => p + s),
    fc.constantFrom('auto:all', 'tag:prod', 'vm:web', 'vm:a', 'tag:'),
  );
  fc.assert(
    fc.property(spec, (text) => {
      const result = attempt(() => parseAttachmentSpec(text));
      if (!result.ok) return share.refused();
      share.accepted();
      assert.equal(result.value, text);
      assert.match(
        text,
        /^(?:auto:all|tag:[a-z][a-z0-9_-]{0,62}|vm:[a-z][a-z0-9-]{0,61}[a-z0-9])$/,
      );
    }),
    { numRuns: 3000 },
  );
  share.assertFloor((message) => t.diagnostic(message));
});

test('parseReflectionFields: known fields only, each once, in SPEC order', (t) => {
  const share = new BranchShare();
  const item = fc.oneof(
    fc.constantFrom(...REFLECTION_FIELDS, ...REFLECTION_FIELDS.map((f) => `/${f}`), ' tags ', ''),
    anyText,
  );
  fc.assert(
    fc.property(fc.array(item, { maxLength: 8 }), (items) => {
      const result = attempt(() => parseReflectionFields(items.join(',')));
      if (!result.ok) return share.refused();
      share.accepted();
      const wanted = items
        .join(',')
        .split(',')
        .map((i) => i.trim().replace(/^\//, ''))
        .filter((i) => i !== '');
      assert.deepEqual(
        result.value,
        REFLECTION_FIELDS.filter((f) => wanted.includes(f)),
      );
    }),
    { numRuns: 3000 },
  );
  share.assertFloor((message) => t.diagnostic(message));
});
