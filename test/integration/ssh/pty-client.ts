// The real OpenSSH client on a real pty (util-linux `script`), driven like expect: wait for
// text on the screen, then type.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** How long to wait for expected output before failing (a bound, not a timing assertion). */
const WAIT_MS = 15_000;

export class PtyClient {
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  #output = '';
  #seen = 0;
  #waiters: (() => void)[] = [];

  /** Starts `ssh <args>` inside `script`, so that ssh sees a terminal and asks for a pty. */
  constructor(sshArgs: readonly string[]) {
    const command = ['ssh', '-tt', ...sshArgs].map(shellQuote).join(' ');
    const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm' };
    delete env.SSH_AUTH_SOCK;
    this.#child = spawn('script', ['-qfec', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#exited = once(this.#child, 'exit').then(([code]) => code as number | null);
    const collect = (chunk: Buffer) => {
      this.#output += chunk.toString('utf8');
      for (const wake of this.#waiters.splice(0)) wake();
    };
    this.#child.stdout!.on('data', collect);
    this.#child.stderr!.on('data', collect);
    void this.#exited.then(() => this.#waiters.splice(0).forEach((wake) => wake()));
  }

  /** Everything the terminal showed so far, escape sequences included. */
  get output(): string {
    return this.#output;
  }

  /**
   * Waits until `pattern` appears in output not consumed by an earlier wait, and consumes
   * the output up to the end of the match. Returns the consumed text.
   */
  async waitFor(pattern: string | RegExp): Promise<string> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const rest = this.#output.slice(this.#seen);
      const match =
        typeof pattern === 'string'
          ? { index: rest.indexOf(pattern), length: pattern.length }
          : ((m) =>
              m === null ? { index: -1, length: 0 } : { index: m.index, length: m[0].length })(
              pattern.exec(rest),
            );
      if (match.index >= 0) {
        this.#seen += match.index + match.length;
        return rest.slice(0, match.index + match.length);
      }
      if (this.#child.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `never saw ${String(pattern)}; the terminal showed:\n${JSON.stringify(this.#output)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Types bytes as a user would (`\r` is Enter, `\x03` Ctrl-C, `\x1b[A` Up). */
  type(keys: string): void {
    this.#child.stdin!.write(keys);
  }

  /** Waits for ssh (and script) to end and returns ssh's exit status. */
  exitCode(): Promise<number | null> {
    return this.#exited;
  }

  /** Ends the client if it is still running; safe to call twice. */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill();
    await this.#exited;
  }
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
