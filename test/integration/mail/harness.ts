// Shared by the mail tests: a root server with machine VMs and its SMTP listener, its /exec
// driven with one owner token, and Python's smtplib as the mail client (smtp-client.py).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServiceConfig } from '../../../src/service/index.js';
import { FAR } from '../proxy/fixture.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const CMDS = ['new', 'ssh', 'whoami', 'share receive-email', 'rm'];
const CLIENT = fileURLToPath(new URL('smtp-client.py', import.meta.url));

/** What the SMTP server answered: 250 when every recipient took the message. */
export interface SmtpAnswer {
  code: number;
  message: string;
}

export interface MailHarness {
  svc: TestService;
  /** The SMTP listener's port (0 without one). */
  smtpPort: number;
  /** `/exec` as the owner: the status and body. */
  exec(line: string): Promise<{ status: number; text: string }>;
  /** `/exec` as the owner, asserting 200: the body. */
  ok(line: string): Promise<string>;
  /** Sends `message` (or `size` bytes of body) from `sender` to `recipients` with smtplib. */
  send(recipients: string[], message: string | { size: number }): Promise<SmtpAnswer>;
  stop(): Promise<void>;
}

/** Starts the server (bwrap runtime, as root) with an SMTP listener on a free port. */
export async function startMailHarness(config: Partial<ServiceConfig> = {}): Promise<MailHarness> {
  const svc = await startTestService({
    runtime: 'bwrap',
    commandDeadlineMs: 20_000,
    smtpListen: { host: '127.0.0.1', port: 0 },
    ...config,
  });
  const smtpPort = svc.service.endpoints.smtp?.port ?? 0;
  const token = await svc.token(`{"exp":${FAR},"cmds":${JSON.stringify(CMDS)}}`);
  const exec = async (line: string) => {
    const res = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: line,
    });
    return { status: res.status, text: await res.text() };
  };
  return {
    svc,
    smtpPort,
    exec,
    async ok(line) {
      const answer = await exec(line);
      assert.equal(answer.status, 200, `${line}: ${answer.text}`);
      return answer.text;
    },
    send: (recipients, message) => smtplib(smtpPort, recipients, message),
    stop: () => svc.stop(),
  };
}

function smtplib(
  port: number,
  recipients: string[],
  message: string | { size: number },
): Promise<SmtpAnswer> {
  const args = [CLIENT, String(port), 'sender@example.com', recipients.join(',')];
  if (typeof message !== 'string') args.push(String(message.size));
  return new Promise((resolve, reject) => {
    const child = execFile('python3', args, { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err !== null) return reject(new Error(`smtp-client.py: ${err.message} ${stderr}`));
      resolve(JSON.parse(stdout) as SmtpAnswer);
    });
    child.stdin!.end(typeof message === 'string' ? message : '');
  });
}
