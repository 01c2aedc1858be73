// The real OpenSSH client on a real pty of a chosen size (util-linux `script`), for VM shell
// tests: wait for text on the screen, type, and change the window's size as a user
// dragging a terminal window would (the client then sends an SSH window-change).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readlink } from 'node:fs/promises';
import { uniqueMarker } from '../vm/fixture.js';

/** How long to wait for expected output before failing (a bound, not a timing assertion). */
const WAIT_MS = 15_000;

export class SizedPtyClient {
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  #output = '';
  #seen = 0;

  /**
   * Starts `ssh -tt <sshArgs>` on a pty of `cols` × `rows`: `script` makes the pty, sets its
   * size, then runs ssh on it, which asks the server for a pty of that size.
   */
  constructor(sshArgs: readonly string[], size: { cols: number; rows: number }) {
    const ssh = ['ssh', '-tt', ...sshArgs].map(shellQuote).join(' ');
    const command = `stty cols ${size.cols} rows ${size.rows} && exec ${ssh}`;
    const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm' };
    delete env.SSH_AUTH_SOCK;
    this.#child = spawn('script', ['-qec', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#exited = once(this.#child, 'exit').then(([code]) => code as number | null);
    const collect = (chunk: Buffer) => (this.#output += chunk.toString('utf8'));
    this.#child.stdout!.on('data', collect);
    this.#child.stderr!.on('data', collect);
  }

  /** Waits for `pattern` in output not consumed yet, and consumes up to the end of the match. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const match = pattern.exec(this.#output.slice(this.#seen));
      if (match !== null) {
        this.#seen += match.index + match[0].length;
        return match;
      }
      if (this.#child.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `never saw ${pattern}; the terminal showed:\n${JSON.stringify(this.#output)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Types a command line into the shell on the other end and returns what it printed, between
   * two marker lines: the echo of the typed line shows the markers in quotes (maybe wrapped),
   * the output shows them bare. `command` must end like a command in a list (`cmd & true`).
   */
  async run(command: string): Promise<string> {
    const [start, end] = [uniqueMarker(), uniqueMarker()];
    this.type(`echo "<${start}>"; ${command}; echo "<${end}>"\r`);
    const esc = (marker: string) => marker.replace('.', '\\.');
    const match = await this.waitFor(
      new RegExp(`(?<!")<${esc(start)}>\\r\\n([\\s\\S]*?)<${esc(end)}>\\r\\n`),
    );
    return match[1]!;
  }

  /** Types bytes as a user would (`\r` is Enter, `\x03` Ctrl-C). */
  type(keys: string): void {
    this.#child.stdin!.write(keys);
  }

  /**
   * Resizes the client's terminal: `stty` on the pty that `script` holds, which sends ssh a
   * SIGWINCH, as a terminal emulator does when its window changes.
   */
  async resize(cols: number, rows: number): Promise<void> {
    const pid = this.#child.pid!;
    const fds = await readdir(`/proc/${pid}/fd`);
    const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`)));
    const tty = links.find((link) => /^\/dev\/pts\/\d+$/.test(link));
    if (tty === undefined) throw new Error('script holds no pty');
    const stty = spawn('stty', ['-F', tty, 'cols', String(cols), 'rows', String(rows)]);
    const [code] = await once(stty, 'exit');
    if (code !== 0) throw new Error(`stty ended with ${code}`);
  }

  /** Waits for ssh (and script) to end and returns ssh's exit status. */
  exitCode(): Promise<number | null> {
    return this.#exited;
  }

  /** Ends the client if it is still running (the terminal hangs up); safe to call twice. */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill();
    await this.#exited;
  }
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
