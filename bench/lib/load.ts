// Small load generator and child-server helpers shared by the benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
}

/** Percentile of sorted milliseconds. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * Keeps `connections` keep-alive connections busy with `method` (POST by default) `path` for
 * `durationMs` and reports throughput and latency. Any status other than `expectStatus` aborts
 * the run. `localAddress` picks the loopback address the connections come from (another
 * client, for the server's per-address limits).
 */
export async function loadTest(options: {
  url: string;
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  localAddress?: string;
  /** The request headers, or a function giving each request its own (e.g. rotating tokens). */
  headers: Record<string, string> | (() => Record<string, string>);
  connections: number;
  durationMs: number;
  expectStatus?: number;
}): Promise<LoadResult> {
  const pool = new Pool(options.url, {
    connections: options.connections,
    pipelining: 1,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
  const latencies: number[] = [];
  const end = performance.now() + options.durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const res = await pool.request({
        method: options.method ?? 'POST',
        path: options.path,
        headers: typeof options.headers === 'function' ? options.headers() : options.headers,
        body: options.body,
      });
      await res.body.dump();
      if (res.statusCode !== (options.expectStatus ?? 200)) {
        throw new Error(`unexpected status ${res.statusCode}`);
      }
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.connections }, worker));
  const elapsed = performance.now() - started;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: (latencies.length * 1000) / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** A server in a child process that prints its URL as its first line. */
export async function startServer(
  script: string,
  args: string[] = [],
): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [url] = (await once(lines, 'line')) as [string];
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export function fmt(result: LoadResult): string {
  return `${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`;
}
