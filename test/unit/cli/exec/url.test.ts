// The service URL as given, and the /exec endpoint under it: a wrong URL is said as what it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExectlError } from '../../../../src/errors.js';
import { execEndpoint } from '../../../../src/cli/exec/url.js';

test('execEndpoint: the /exec path under --url', () => {
  const cases: [string, string][] = [
    ['http://127.0.0.1:7070', 'http://127.0.0.1:7070/exec'],
    ['http://127.0.0.1:7070/', 'http://127.0.0.1:7070/exec'],
    ['https://exec.example.com/base//', 'https://exec.example.com/base/exec'],
    ['HTTP://LOCALHOST:80/a?x=1', 'http://localhost/a/exec'],
  ];
  for (const [url, endpoint] of cases) assert.equal(execEndpoint(url), endpoint, url);
});

test('execEndpoint: anything but http(s) is a usage error naming the URL', () => {
  for (const url of ['localhost:7070', 'ftp://host/', 'not a url', '']) {
    assert.throws(
      () => execEndpoint(url),
      (err: unknown) =>
        err instanceof ExectlError &&
        err.code === 'usage' &&
        err.message === `--url "${url}" is not an http:// or https:// URL` &&
        err.hint === 'e.g. http://127.0.0.1:7070',
    );
  }
});

test('execEndpoint: a URL ending in /exec (copied from curl) names the address to give instead', () => {
  const cases: [string, string, string][] = [
    ['http://127.0.0.1:7070/exec', '--url', 'http://127.0.0.1:7070'],
    ['https://h.example/base/exec/', 'EXECTL_URL', 'https://h.example/base'],
    ['http://h/exec', 'url of profile "work" in /c/config.json', 'http://h'],
  ];
  for (const [url, from, base] of cases) {
    assert.throws(
      () => execEndpoint(url, from),
      (err: unknown) =>
        err instanceof ExectlError &&
        err.code === 'usage' &&
        err.message === `${from} "${url}" ends in /exec, which exectl adds itself` &&
        err.hint === `give the service's address: ${base}`,
      url,
    );
  }
});
