// The dashboard's one-time sign-in links and the sessions they open (SPEC §11). Both live in
// the server's memory only: a restart signs everyone out, and nothing secret reaches the
// database. Link secrets and session ids are kept as their SHA-256, so what is held here could
// not be replayed even if it leaked (a heap dump, a debugger).
import { createHash, randomBytes } from 'node:crypto';

/** What a session may do: exactly what the token (or SSH key) that asked for its link could. */
export interface Grant {
  accountId: number;
  /** The key that asked: removing it ends every session it opened. */
  keyFingerprint: string;
  /** The asking token's effective cmds; null: not limited (SSH, or the owner's link from serve). */
  cmds: readonly string[] | null;
  /** When the asking token expires (unix seconds); the session ends then too. Null: never. */
  exp: number | null;
}

/** How long a link stays usable (SPEC §11: 15 minutes). */
export const LINK_LIFETIME_MS = 15 * 60_000;
/** How long a session lasts at most, unless its token expires first. */
export const SESSION_LIFETIME_MS = 12 * 3600_000;
/** Bound on links and sessions held at once: the oldest are dropped past it. */
const MAX_HELD = 10_000;
/**
 * Bound per account on links and on sessions: past it the account's own oldest goes, so that
 * one account asking for thousands of links (a key each) never signs another out.
 */
export const HELD_PER_ACCOUNT = 50;

interface Held {
  grant: Grant;
  untilMs: number;
}

/** Links waiting to be used once, and the sessions they opened. */
export class SignIns {
  readonly #links = new Map<string, Held>();
  readonly #sessions = new Map<string, Held>();
  readonly #nowMs: () => number;

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  /** A fresh link secret for `grant`, usable once within {@link LINK_LIFETIME_MS}. */
  createLink(grant: Grant): string {
    const secret = randomBytes(32).toString('base64url');
    hold(this.#links, digest(secret), { grant, untilMs: this.#nowMs() + LINK_LIFETIME_MS });
    return secret;
  }

  /**
   * Uses the link `secret` up and opens a session: its id (the cookie's value), its grant and
   * how long it lasts, or undefined when the link is unknown, used already or expired.
   */
  redeem(
    secret: string,
  ): { sessionId: string; grant: Grant; untilMs: number; lifetimeMs: number } | undefined {
    const key = digest(secret);
    const link = this.#links.get(key);
    this.#links.delete(key);
    const nowMs = this.#nowMs();
    if (link === undefined || link.untilMs <= nowMs) return undefined;
    const sessionId = randomBytes(32).toString('base64url');
    const tokenEndMs = link.grant.exp === null ? Infinity : link.grant.exp * 1000;
    const untilMs = Math.min(nowMs + SESSION_LIFETIME_MS, tokenEndMs);
    hold(this.#sessions, digest(sessionId), { grant: link.grant, untilMs });
    return { sessionId, grant: link.grant, untilMs, lifetimeMs: untilMs - nowMs };
  }

  /** The grant of a live session, or undefined (unknown, expired, or ended). */
  session(sessionId: string): Grant | undefined {
    const key = digest(sessionId);
    const held = this.#sessions.get(key);
    if (held === undefined) return undefined;
    if (held.untilMs <= this.#nowMs()) {
      this.#sessions.delete(key);
      return undefined;
    }
    return held.grant;
  }

  /** Ends the session `sessionId` (its key was removed, or the user signed out). */
  end(sessionId: string): void {
    this.#sessions.delete(digest(sessionId));
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/**
 * Maps keep insertion order: past the account's bound its oldest entry goes first, past the
 * whole bound the oldest of all.
 */
function hold(map: Map<string, Held>, key: string, held: Held): void {
  const account = held.grant.accountId;
  let count = 0;
  let oldest: string | undefined;
  for (const [k, h] of map) {
    if (h.grant.accountId !== account) continue;
    oldest ??= k;
    count += 1;
  }
  if (count >= HELD_PER_ACCOUNT) map.delete(oldest!);
  else if (map.size >= MAX_HELD) map.delete(map.keys().next().value!);
  map.set(key, held);
}
