import { dashboardOrigin } from '../dashboard/guard.js';
import { json, type ServiceCommand } from './shared/command.js';

/** Where a sign-in link points on the HTTP listener; the secret follows it. */
export const SIGN_IN_PATH = '/_/signin/';

/**
 * `browser` — a one-time link that opens the dashboard signed in as the caller (SPEC §11),
 * valid 15 minutes. The session it opens may run exactly the commands this request's token
 * may (an SSH session's, or the owner's link printed by `serve`, any), and ends when the key
 * that asked is removed.
 */
export const browserCommand: ServiceCommand = {
  path: 'browser',
  description: 'Get a one-time link (15 minutes) that opens the dashboard signed in as you',
  usage: 'browser',
  flags: [],
  args: [],
  examples: ['browser'],
  mutates: true,
  async run(ctx) {
    const { principal, deps } = ctx;
    const secret = deps.signIns.createLink({
      accountId: principal.accountId,
      keyFingerprint: principal.keyFingerprint,
      cmds: principal.cmds,
      exp: principal.exp,
    });
    const origin = dashboardOrigin(deps.config, deps.endpoints.http);
    return json({ magic_link: `${origin}${SIGN_IN_PATH}${secret}` });
  },
};
