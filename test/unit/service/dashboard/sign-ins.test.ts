// The dashboard's sign-in links and sessions (SPEC §11), on a clock the test moves: a link
// works once, and not after 15 minutes; a session ends at its token's exp or after its
// lifetime; only SHA-256 digests are held, so nothing secret can be read back from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HELD_PER_ACCOUNT,
  LINK_LIFETIME_MS,
  SESSION_LIFETIME_MS,
  SignIns,
  type Grant,
} from '../../../../src/service/dashboard/sign-ins.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const GRANT: Grant = { accountId: 1, keyFingerprint: 'SHA256:abc', cmds: ['ls'], exp: null };

function clock() {
  let ms = T0;
  return { now: () => ms, advance: (by: number) => (ms += by) };
}

test('a link opens one session, once', () => {
  const c = clock();
  const signIns = new SignIns(c.now);
  const secret = signIns.createLink(GRANT);
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
  const session = signIns.redeem(secret);
  assert.ok(session !== undefined);
  assert.deepEqual(signIns.session(session.sessionId), GRANT);
  assert.equal(signIns.redeem(secret), undefined);
});

test('a link expires after 15 minutes, to the millisecond', () => {
  const c = clock();
  const signIns = new SignIns(c.now);
  const late = signIns.createLink(GRANT);
  const inTime = signIns.createLink(GRANT);
  c.advance(LINK_LIFETIME_MS - 1);
  assert.ok(signIns.redeem(inTime) !== undefined);
  c.advance(1);
  assert.equal(signIns.redeem(late), undefined);
  assert.equal(LINK_LIFETIME_MS, 15 * 60_000);
});

test('a session ends at its lifetime, or at its token exp when sooner', () => {
  const c = clock();
  const signIns = new SignIns(c.now);
  const long = signIns.redeem(signIns.createLink(GRANT))!;
  const expSeconds = T0 / 1000 + 60;
  const short = signIns.redeem(signIns.createLink({ ...GRANT, exp: expSeconds }))!;
  assert.equal(short.untilMs, expSeconds * 1000);
  assert.equal(long.untilMs, T0 + SESSION_LIFETIME_MS);
  c.advance(60_000);
  assert.equal(signIns.session(short.sessionId), undefined);
  assert.ok(signIns.session(long.sessionId) !== undefined);
  c.advance(SESSION_LIFETIME_MS);
  assert.equal(signIns.session(long.sessionId), undefined);
});

test('an ended session is gone; unknown ids and secrets find nothing', () => {
  const signIns = new SignIns(clock().now);
  const { sessionId } = signIns.redeem(signIns.createLink(GRANT))!;
  signIns.end(sessionId);
  assert.equal(signIns.session(sessionId), undefined);
  assert.equal(signIns.session('A'.repeat(43)), undefined);
  assert.equal(signIns.redeem(''), undefined);
});

test('a session id is not the link secret, and neither is held as given', () => {
  const signIns = new SignIns(clock().now);
  const secret = signIns.createLink(GRANT);
  const { sessionId } = signIns.redeem(secret)!;
  assert.notEqual(sessionId, secret);
  // The session cannot be used as a link, nor the link as a session.
  assert.equal(signIns.session(secret), undefined);
  assert.equal(signIns.redeem(sessionId), undefined);
});

test('an account holds at most 50 links and 50 sessions: its own oldest go, never another’s', () => {
  const c = clock();
  const signIns = new SignIns(c.now);
  const victim = signIns.redeem(signIns.createLink({ ...GRANT, accountId: 2 }))!;
  const victimLink = signIns.createLink({ ...GRANT, accountId: 2 });
  // Account 1 asks for 10,050 links and opens sessions with the last 10,000 of them.
  const links = Array.from({ length: 10_050 }, () => signIns.createLink(GRANT));
  assert.equal(signIns.redeem(links[0]!), undefined, 'its own oldest link went');
  const sessions = links.slice(-HELD_PER_ACCOUNT).map((l) => signIns.redeem(l)!.sessionId);
  assert.equal(signIns.session(sessions[0]!)?.accountId, 1);
  signIns.redeem(signIns.createLink(GRANT)); // one session more: account 1's oldest goes
  assert.equal(signIns.session(sessions[0]!), undefined);
  assert.equal(signIns.session(sessions[1]!)?.accountId, 1);
  // Account 2 is untouched.
  assert.equal(signIns.session(victim.sessionId)?.accountId, 2);
  assert.ok(signIns.redeem(victimLink) !== undefined);
});
