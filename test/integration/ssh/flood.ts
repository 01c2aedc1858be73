// What a flood test watches while a hostile client floods the SSH front end of a whole service
// running in this process: /healthz answering (a stalled event loop answers nobody) and the
// process's resident memory. Both are polled, never slept on.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestService } from '../../helpers/service.js';

const MB = 1024 * 1024;

/** What was seen while watching. */
export interface Watched {
  /** /healthz answer times, in ms (an answer that never came counts as the time waited). */
  healthMs: number[];
  /** The largest RSS growth over the baseline, in MB. */
  peakRssGrowthMb: number;
}

/**
 * Polls GET `<url>/healthz` about every 50 ms and samples RSS until `stop()`. `tooBig` is
 * called as soon as RSS has grown past `rssLimitMb`, so that a flood can stop before it takes
 * the machine's memory (the tests share it).
 */
export function watchService(url: string, rssLimitMb: number, tooBig: () => void) {
  const baseline = process.memoryUsage.rss();
  const watched: Watched = { healthMs: [], peakRssGrowthMb: 0 };
  let stopped = false;
  const sampleRss = () => {
    const growth = (process.memoryUsage.rss() - baseline) / MB;
    watched.peakRssGrowthMb = Math.max(watched.peakRssGrowthMb, growth);
    if (growth > rssLimitMb) tooBig();
  };
  const health = (async () => {
    while (!stopped) {
      const started = performance.now();
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) }).catch(
        () => undefined,
      );
      await res?.arrayBuffer();
      watched.healthMs.push(performance.now() - started);
      sampleRss();
      await sleep(50);
    }
  })();
  const memory = (async () => {
    while (!stopped) {
      sampleRss();
      await sleep(100);
    }
  })();
  return {
    async stop(): Promise<Watched> {
      stopped = true;
      await Promise.all([health, memory]);
      return watched;
    },
  };
}

/** The 99th percentile of `samples` (the largest one when there are fewer than 100). */
export function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Infinity;
}

/** `ssh` options for the service's SSH listener, signing in with the owner's key. */
export function sshArgs(svc: TestService, extra: string[], command?: string): string[] {
  const { port } = svc.service.endpoints.ssh!;
  return [
    ...['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no'],
    ...['-o', `UserKnownHostsFile=${svc.dir.join('known_hosts')}`, '-o', 'IdentitiesOnly=yes'],
    ...['-o', 'LogLevel=ERROR', '-e', 'none', '-i', svc.owner.key.path, '-p', String(port)],
    ...extra,
    '127.0.0.1',
    ...(command === undefined ? [] : [command]),
  ];
}

/** Starts `ssh` with every stream a pipe: the test decides what it writes and reads. */
export function spawnSsh(args: string[]): ChildProcess {
  const child = spawn('ssh', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  // Writes still queued when the test kills the client fail with EPIPE: nothing to report.
  child.stdin!.on('error', () => {});
  return child;
}

/**
 * Writes `piece` to `child`'s stdin again and again until `until` (given the bytes written so
 * far) says stop, waiting for the
 * pipe to drain (up to the stop) whenever it is full: the flood goes as fast as the server
 * takes it, never faster. Resolves with the bytes written.
 */
export async function flood(
  child: ChildProcess,
  piece: Buffer,
  until: (written: number) => boolean,
): Promise<number> {
  let written = 0;
  while (!until(written) && child.exitCode === null) {
    written += piece.length;
    if (child.stdin!.write(piece)) {
      // Let the watchers run between pieces, as a network would.
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    while (!until(written) && child.stdin!.writableNeedDrain) {
      // A bounded wait, so that `until` is asked again even if the pipe never drains.
      await once(child.stdin!, 'drain', { signal: AbortSignal.timeout(100) }).catch(() => {});
    }
  }
  return written;
}

/** Kills `child` and waits for it to be gone. */
export async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
