// What `exectl serve` shows on stderr once it listens: where, with which runtime, for whom,
// and the first command to paste. Never a token or a private key: only public fingerprints.
import { quoteForShell } from '../../../shell-words.js';
import type { Style } from '../../output.js';
import { DEFAULT_DOMAIN, DEFAULT_URL } from '../../settings.js';

/** Everything the banner shows, gathered by the serve command. */
export interface BannerFacts {
  http: string;
  ssh: { host: string; port: number } | null;
  /** Fingerprint of the SSH host key, so the first `ssh` prompt can be checked. */
  sshHostKey: string | null;
  /** Each VM has an SSH address of its own (a root server); else `vm+<name>@host` only. */
  vmSshAddresses: boolean;
  reflection: string;
  /** The SMTP listener taking mail for VMs, or null when it is off. */
  smtp: { host: string; port: number } | null;
  dataDir: string;
  /** The data folder is the default one, so commands about it need no `--data`. */
  dataIsDefault: boolean;
  ephemeral: boolean;
  runtime: { kind: 'bwrap' | 'process'; reason?: string; warnings: string[] };
  domain: string;
  vmDomain: string;
  /** `--compat`'s value, or null. */
  compat: string | null;
  /** The first account, and whether this start created it. */
  owner: { email: string; created: boolean; keys: { name: string; fingerprint: string }[] };
  accounts: number;
  /** The rate limit in force, in words, and where it came from (`the default`, `--rate-limit`). */
  rateLimit: { text: string; from: string };
  /** How the client is started here: `exectl` when it is on PATH, else `npx exectl`. */
  client: string;
  /**
   * A one-time link (15 minutes) that opens the dashboard signed in as the owner (SPEC §11);
   * null when the owner has no key. A secret: shown to the operator only, never logged.
   */
  dashboardLink: string | null;
}

/**
 * How VMs are reached over SSH, said once with the listener on: at an address of their own,
 * or (an ordinary user's server, or a listener on neither loopback nor every interface) as
 * user `vm+<name>` only.
 */
function vmSshRows(facts: BannerFacts, style: Style): [string, string][] {
  if (facts.ssh === null) return [];
  return [
    [
      '',
      style.label(
        facts.vmSshAddresses
          ? 'each VM at an address of its own, any user name (ls: ssh_host); ssh-config writes the blocks'
          : 'VMs as vm+<name>@host only: no address per VM (the server is not root, or SSH listens on neither loopback nor every interface)',
      ),
    ],
  ];
}

/** The banner text, ending with a newline. */
export function renderBanner(facts: BannerFacts, style: Style): string {
  const rows: [string, string][] = [
    ['HTTP', `${facts.http}  ${style.label('(/exec, the VM proxy and the dashboard)')}`],
    [
      'SSH',
      facts.ssh === null
        ? style.label('off')
        : `${sshCommand(facts.ssh)}  ${style.label(`(host key ${facts.sshHostKey ?? '?'})`)}`,
    ],
    ...vmSshRows(facts, style),
    ['Reflection', facts.reflection],
    [
      'SMTP',
      facts.smtp === null
        ? style.label('off')
        : `${facts.smtp.host}:${facts.smtp.port}  ${style.label(`(mail for *@<vm>.${facts.vmDomain})`)}`,
    ],
    [
      'Data',
      facts.ephemeral
        ? `${facts.dataDir}  ${style.warn('(ephemeral: deleted when the server stops)')}`
        : facts.dataDir,
    ],
    ['Runtime', runtimeLine(facts.runtime, style)],
    ...compatRows(facts),
    ...rateLimitRows(facts.rateLimit, style),
    ['Owner', ownerLine(facts, style)],
  ];
  const keys = facts.owner.keys.map((k) => `${k.fingerprint}  ${style.label(k.name)}`);
  keys.forEach((key, i) => rows.push([i === 0 ? 'Keys' : '', key]));

  const lines = [style.good('exectl serve is ready'), ''];
  for (const [label, value] of rows) lines.push(`  ${style.label(label.padEnd(11))} ${value}`);
  lines.push('');
  if (facts.runtime.kind === 'process') lines.push(...processWarning(facts.runtime.reason, style));
  // Each guarantee of SPEC §4 this host cannot give, named once (degraded mode).
  for (const warning of facts.runtime.warnings) lines.push(style.warn(`  WARNING: ${warning}`));
  if (facts.runtime.warnings.length > 0) lines.push('');
  if (keys.length === 0) lines.push(...noKeyWarning(facts, style));
  lines.push(`  Try:  ${firstCommand(facts)}`);
  if (facts.dashboardLink !== null) {
    lines.push(
      `  Dashboard:  ${facts.dashboardLink}`,
      style.label(
        `  (signs in as ${facts.owner.email}: once, within 15 minutes; a new one: ${clientLine(facts, 'browser')})`,
      ),
    );
  }
  lines.push('', style.label('Ctrl-C stops the server.'));
  return `${lines.join('\n')}\n`;
}

/**
 * `exectl run whoami` (or `npx exectl …` when `exectl` is not on PATH), with the flags a client
 * needs to find this server and its namespace: a line that works when pasted.
 */
export function firstCommand(facts: Pick<BannerFacts, 'http' | 'domain' | 'client'>): string {
  return clientLine(facts, 'whoami');
}

/**
 * `exectl run <command>` as it must be typed to reach this server: with its --url and
 * namespace when they are not the defaults (the banner's every suggestion is runnable as is).
 */
function clientLine(
  facts: Pick<BannerFacts, 'http' | 'domain' | 'client'>,
  command: string,
): string {
  // `run` has no --namespace: the variable carries it (`--compat exe.dev` makes it v0@exe.dev).
  const words = facts.domain === DEFAULT_DOMAIN ? [] : [`EXECTL_NAMESPACE=v0@${facts.domain}`];
  words.push(`${facts.client} run`);
  if (facts.http !== DEFAULT_URL) words.push(`--url ${facts.http}`);
  words.push(command);
  return words.join(' ');
}

/** Under `--compat`: which names are spoken, and where the VMs are. */
function compatRows(facts: BannerFacts): [string, string][] {
  if (facts.compat === null) return [];
  return [
    ['Compat', `${facts.compat}: its token prefixes, command names and headers too`],
    ['Namespaces', `v0@${facts.domain}, VMs v0@<vm>.${facts.vmDomain}`],
  ];
}

/** What the limit is, and how to change it: the first thing to look at after a 429. */
function rateLimitRows(rate: BannerFacts['rateLimit'], style: Style): [string, string][] {
  const change =
    rate.text === 'off'
      ? '--rate-limit N/DURATION turns it on, e.g. 60/60s'
      : '--rate-limit N/DURATION changes it; --rate-limit 0 turns it off';
  return [
    ['Rate limit', `${rate.text}  ${style.label(`(${rate.from})`)}`],
    ['', style.label(change)],
  ];
}

function sshCommand(ssh: { host: string; port: number }): string {
  return ssh.port === 22 ? `ssh ${ssh.host}` : `ssh -p ${ssh.port} ${ssh.host}`;
}

function ownerLine(facts: BannerFacts, style: Style): string {
  const { email, created } = facts.owner;
  const notes = [
    created ? 'account created now' : '',
    facts.accounts > 1 ? `${facts.accounts} accounts in all` : '',
  ].filter((n) => n !== '');
  return notes.length === 0 ? email : `${email}  ${style.label(`(${notes.join(', ')})`)}`;
}

function runtimeLine(runtime: BannerFacts['runtime'], style: Style): string {
  if (runtime.kind === 'process') return style.bad('process');
  return runtime.warnings.length === 0
    ? 'bwrap (machine VMs: own ids, network, disk and limits)'
    : 'bwrap (isolated VMs)';
}

function processWarning(reason: string | undefined, style: Style): string[] {
  return [
    style.bad('  WARNING: VM runtime "process": NO ISOLATION.'),
    style.bad('  Commands run in VMs are plain processes of your user: they can read and'),
    style.bad('  change all your files. Use --runtime bwrap where bubblewrap works.'),
    ...(reason === undefined ? [] : [style.bad(`  (${reason})`)]),
    '',
  ];
}

function noKeyWarning(facts: BannerFacts, style: Style): string[] {
  const email = facts.owner.email;
  const data = facts.dataIsDefault ? '' : ` --data ${quoteForShell(facts.dataDir)}`;
  return [
    style.warn(`  WARNING: ${email} has no SSH key registered: nobody can sign in.`),
    style.warn('  Make a key if you have none and register it; this server takes it at once:'),
    style.warn('    ssh-keygen -t ed25519'),
    style.warn(`    exectl serve accounts add ${email} --key ~/.ssh/id_ed25519.pub${data}`),
    '',
  ];
}
