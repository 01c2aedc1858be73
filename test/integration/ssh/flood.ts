// What a flood test watches while a hostile client floods the SSH front end of a whole service
// running in this process: /healthz answering (a stalled event loop answers nobody) and the
// process's resident memory. Both are polled, never slept on.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const MB = 1024 * 1024;
/** What a flood may make the server grow by (issue 25). */
export const RSS_LIMIT_MB = 150;

/** Runs `body` with a whole service listening for SSH, warmed up, and stops it after. */
export async function withService(body: (svc: TestService) => Promise<void>): Promise<void> {
  const svc = await startTestService({ sshListen: { host: '127.0.0.1', port: 0 } });
  try {
    // The first fetch, and the first run of a command here, load code (fetch's, and the test
    // loader compiles TypeScript on the fly): that time is not the flood's. Warm both up.
    assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
    assert.equal((await run('ssh', sshArgs(svc, [], 'whoami --json'))).code, 0);
    assert.equal((await run('ssh', sshArgs(svc, [], 'whoami surplus'))).code, 1);
    await body(svc);
  } finally {
    await svc.stop();
  }
}

/** After a flood: another client is served, memory is back in bounds, and stopping works. */
export async function assertServerFine(
  t: TestContext,
  svc: TestService,
  watched: Watched,
): Promise<void> {
  t.diagnostic(
    `healthz p99 ${p99(watched.healthMs).toFixed(0)} ms (${watched.healthMs.length} polls), ` +
      `RSS peak growth ${watched.peakRssGrowthMb.toFixed(0)} MB`,
  );
  assert.ok(
    p99(watched.healthMs) < 1000,
    `/healthz p99 ${p99(watched.healthMs).toFixed(0)} ms over ${watched.healthMs.length} polls`,
  );
  assert.ok(
    watched.peakRssGrowthMb < RSS_LIMIT_MB,
    `RSS grew by ${watched.peakRssGrowthMb.toFixed(0)} MB`,
  );
  const whoami = await run('ssh', sshArgs(svc, [], 'whoami --json'));
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.equal(JSON.parse(whoami.stdout).email, 'owner@example.com');
  const stopped = await Promise.race([svc.service.close().then(() => true), sleep(20_000)]);
  assert.equal(stopped, true, 'the service did not stop within 20 s');
}

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
