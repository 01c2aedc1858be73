import type { PseudoTtyInfo, ServerChannel } from 'ssh2';
import type { InteractiveOutput, InteractiveSession } from '../dispatch/types.js';

/** What a pty request says about the client's terminal. */
export type PtyRequest = Pick<PseudoTtyInfo, 'cols' | 'rows' | 'term'>;

/**
 * The client's terminal on one SSH session that asked for a pty (`ssh -t`): its TERM and
 * size, kept current by window changes, and the channel. The front end emulates the terminal
 * for its own REPL; an interactive program (`ssh <vm>`: a shell with a real pty in the VM)
 * instead takes the channel over while it runs: keystrokes go to it untouched (Ctrl-C and
 * Ctrl-D are bytes for the VM's terminal), its output comes back untouched (the VM's pty
 * already made `\r\n`), and window changes become resizes.
 */
export class ClientTerminal {
  readonly #channel: ServerChannel;
  readonly #term: string;
  #cols: number;
  #rows: number;
  #program: InteractiveSession | undefined;
  #inUse = false;

  constructor(channel: ServerChannel, pty: PtyRequest) {
    this.#channel = channel;
    this.#term = pty.term;
    this.#cols = pty.cols;
    this.#rows = pty.rows;
  }

  /**
   * True while an interactive program owns the channel: the session's own handling of keys
   * (line editing, Ctrl-C) stands aside, since every byte is the program's.
   */
  get inUse(): boolean {
    return this.#inUse;
  }

  /** The client's terminal width now (kept by window changes): readable tables fit it. */
  get columns(): number {
    return this.#cols;
  }

  /** The client's window changed size (an SSH `window-change` request). */
  resize(cols: number, rows: number): void {
    this.#cols = cols;
    this.#rows = rows;
    this.#program?.resize(cols, rows);
  }

  /**
   * Runs `output` on this terminal until it ends, or until `signal` (Ctrl-C is not one: the
   * client gone, the server stopping) ends it; resolves with its exit code. One at a time.
   */
  async run(output: InteractiveOutput, signal: AbortSignal): Promise<{ exitCode: number }> {
    const channel = this.#channel;
    // Keys typed while the program starts wait in the channel: its pipe resumes the channel
    // once it can take them, and pauses it while the program is not reading (backpressure).
    channel.pause();
    this.#inUse = true;
    try {
      this.#program = output.start({
        cols: this.#cols,
        rows: this.#rows,
        term: this.#term,
        input: channel,
        output: channel,
        signal,
      });
      return await this.#program.exited;
    } finally {
      this.#program = undefined;
      this.#inUse = false;
      // The program let go of the channel paused; the session reads its own keys again.
      if (!channel.destroyed) channel.resume();
    }
  }
}
