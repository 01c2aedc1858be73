// wrk (Debian's `wrk` package: `apt-get install -y wrk`) as the second load generator of the
// benchmarks, always with one thread: a C client whose own cost is small and stable, to check
// that a ratio measured with the in-process generator is not the generator's.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface WrkResult {
  rps: number;
  /** Bytes per second read, as wrk counts them (headers included). */
  bytesPerSecond: number;
  p50: number;
  p99: number;
  /** Answers other than 2xx and 3xx, plus socket errors. */
  failures: number;
}

const UNITS: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9 };
const TIME_UNITS: Record<string, number> = { us: 1e-3, ms: 1, s: 1000 };

/** Whether wrk is installed: each benchmark says so instead of failing when it is not. */
export async function hasWrk(): Promise<boolean> {
  return promisify(execFile)('wrk', ['--version']).then(
    () => true,
    // wrk --version exits 1 after printing its version.
    (err: { stdout?: string }) => /^wrk /.test(err.stdout ?? ''),
  );
}

/**
 * Runs `wrk -t1 -c<connections> -d<seconds>` against `url` with `headers`, and `method` and
 * `body` set through a Lua script when given.
 */
export async function runWrk(options: {
  url: string;
  connections: number;
  durationMs: number;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Lua of its own (e.g. a `request` function), run after the settings above. */
  lua?: string;
}): Promise<WrkResult> {
  // A private folder, removed whatever wrk does: a run leaves no script in /tmp.
  const folder = await mkdtemp(join(tmpdir(), 'exectl-wrk-'));
  const script = join(folder, 'request.lua');
  const lua = [
    `wrk.method = ${JSON.stringify(options.method ?? 'GET')}`,
    ...(options.body === undefined ? [] : [`wrk.body = ${JSON.stringify(options.body)}`]),
    ...Object.entries(options.headers ?? {}).map(
      ([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`,
    ),
    options.lua ?? '',
  ].join('\n');
  let stdout: string;
  try {
    await writeFile(script, `${lua}\n`);
    ({ stdout } = await promisify(execFile)(
      'wrk',
      [
        '-t1',
        `-c${options.connections}`,
        `-d${Math.round(options.durationMs / 1000)}s`,
        '--latency',
        // A 200 MB answer may take longer than wrk's default 2 s on a busy machine.
        '--timeout',
        '60s',
        '-s',
        script,
        options.url,
      ],
      { maxBuffer: 1 << 20 },
    ));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  const number = (pattern: RegExp) => {
    const m = pattern.exec(stdout);
    if (m === null) throw new Error(`wrk printed no ${pattern}:\n${stdout}`);
    return Number(m[1]) * (UNITS[m[2] ?? ''] ?? 1);
  };
  const latency = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(stdout);
    return m === null ? NaN : Number(m[1]) * TIME_UNITS[m[2]!]!;
  };
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    stdout,
  );
  return {
    rps: number(/Requests\/sec:\s+([\d.]+)/),
    bytesPerSecond: number(/Transfer\/sec:\s+([\d.]+)([KMG]?)B/),
    p50: latency('50'),
    p99: latency('99'),
    failures:
      Number(non2xx?.[1] ?? 0) +
      (errors === null ? 0 : errors.slice(1).reduce((sum, n) => sum + Number(n), 0)),
  };
}
