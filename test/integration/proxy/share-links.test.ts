// `share add-link` (SPEC §3) through the VM proxy with real curl: the link gives the browser a
// cookie for that VM's address only, which lets it into the private VM's site; the parameter
// and the cookie never reach the VM; uses are counted; a removed link, a link of another VM or
// a forged cookie opens nothing, and a missing VM answers as a private one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { curl, echoOf, headerText, startProxyFixture, type ProxyFixture } from './fixture.js';

interface Link {
  status: string;
  vm_name: string;
  token: string;
  url: string;
}

describe('VM proxy: share links', () => {
  let f: ProxyFixture;
  let link: Link;
  let other: Link;
  const cookie = (token: string) => ['-H', `Cookie: a=1; exectl_share=${token}; b=2`];

  before(async () => {
    f = await startProxyFixture();
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    await f.createVm('vm2');
    await f.startEchoServer('vm2');
    link = (await f.exec('share add-link vm1')) as Link;
    other = (await f.exec('share add-share-link vm2')) as Link;
  });
  after(() => f.stop());

  test('add-link answers the real shape: the url is the vm address with ?share=', () => {
    assert.match(link.token, /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(link, {
      status: 'success',
      vm_name: 'vm1',
      token: link.token,
      url: `http://vm1.localhost:${f.port}?share=${link.token}`,
    });
    assert.equal(other.vm_name, 'vm2');
  });

  test('opening the link: a redirect without the parameter, and a cookie for this host only', async () => {
    const r = await curl(link.url);
    assert.equal(r.status, 302, r.body);
    assert.equal(r.headers.location, '/');
    assert.equal(
      r.headers['set-cookie'],
      `exectl_share=${link.token}; Path=/; HttpOnly; SameSite=Lax`,
    );
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.equal(r.body, '');
    const kept = await curl(f.vmUrl('vm1', `/p?a=1&share=${link.token}&b=2`));
    assert.equal(kept.headers.location, '/p?a=1&b=2');
    // Never a redirect to another host, however the target is spelt.
    for (const path of [`//evil.test/x?share=${link.token}`, `/\\evil.test/?share=x`]) {
      const odd = await curl(f.vmUrl('vm1', path), ['--path-as-is']);
      assert.ok(
        odd.headers.location!.startsWith('/') && !/^\/[/\\]/.test(odd.headers.location!),
        path,
      );
    }
  });

  test('a browser following the link (real curl with its cookie jar) reaches the private site', async () => {
    const jar = f.svc.dir.join('jar.txt');
    const opened = await curl(link.url, ['-c', jar]);
    assert.equal(opened.status, 302);
    const echo = echoOf(await curl(f.vmUrl('vm1', opened.headers.location), ['-b', jar]));
    assert.equal(echo.url, '/');
    assert.equal(headerText(echo.rawHeaders, 'cookie'), undefined);
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), undefined);
    const again = echoOf(await curl(f.vmUrl('vm1', '/next'), ['-b', jar]));
    assert.equal(again.url, '/next');
  });

  test('the cookie is consumed: the vm sees the other cookies only', async () => {
    const echo = echoOf(await curl(f.vmUrl('vm1', '/c'), cookie(link.token)));
    assert.equal(headerText(echo.rawHeaders, 'cookie'), 'a=1; b=2');
  });

  test('uses are counted in share show', async () => {
    const shown = (await f.exec('share show vm1')) as {
      shares: { links: { token: string; use_count: number; last_used_at: string | null }[] }[];
    };
    const links = shown.shares[0]!.links;
    assert.equal(links.length, 1);
    assert.equal(links[0]!.token, link.token);
    assert.ok(links[0]!.use_count >= 3, String(links[0]!.use_count));
    assert.match(links[0]!.last_used_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test("another vm's link, a forged cookie, a wrong link: nothing opens", async () => {
    for (const token of [other.token, 'forged', `${link.token}x`, '']) {
      const r = await curl(f.vmUrl('vm1'), cookie(token));
      assert.equal(r.status, 401, token);
    }
    const wrong = await curl(f.vmUrl('vm1', '/?share=nope'));
    assert.equal(wrong.status, 302);
    assert.equal(wrong.headers['set-cookie'], undefined);
    // vm2's link at vm1's address gives no cookie either.
    const crossed = await curl(f.vmUrl('vm1', `/?share=${other.token}`));
    assert.equal(crossed.headers['set-cookie'], undefined);
    // A missing vm answers exactly as a private one.
    const missing = await curl(f.vmUrl('nosuchvm', '/?share=nope'));
    const strip = (r: typeof wrong) => r.headerList.filter(([n]) => n !== 'date');
    assert.deepEqual(strip(missing), strip(wrong));
  });

  test('removed, the link opens nothing and the cookies it gave stop working', async () => {
    const made = (await f.exec('share add-link vm1')) as Link;
    assert.equal(echoOf(await curl(f.vmUrl('vm1'), cookie(made.token))).method, 'GET');
    assert.deepEqual(await f.exec(`share remove-link vm1 ${made.token}`), {
      status: 'success',
      vm_name: 'vm1',
    });
    assert.equal((await curl(f.vmUrl('vm1'), cookie(made.token))).status, 401);
    assert.equal((await curl(made.url)).headers['set-cookie'], undefined);
    assert.equal(echoOf(await curl(f.vmUrl('vm1'), cookie(link.token))).method, 'GET');
  });
});
