import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** Idle connections held by another process (see idle-client.mjs). */
export interface IdleConnections {
  /** How many of them the server has ended so far. */
  closed(): number;
  /** Ends the process, and with it every connection still open. */
  stop(): Promise<void>;
}

/**
 * Opens `count` connections to `port` on 127.0.0.1 from the loopback address `from` (127.0.0.2
 * and up are other client addresses), in a child process, and holds them without sending a byte.
 */
export function holdIdleConnections(port: number, from: string, count: number): IdleConnections {
  const script = fileURLToPath(new URL('./idle-client.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, String(port), from, String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let closed = 0;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (closed += chunk.split('\n').length - 1));
  const exited = once(child, 'exit');
  return {
    closed: () => closed,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}
