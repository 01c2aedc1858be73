// How the server answers others while a flood goes on: GET /healthz, one after another, each on
// a new connection, timed.
import { request } from 'node:http';

/** GET /healthz from the loopback address `from`: its status, or the error's code. */
export function healthz(url: string, from: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { localAddress: from, agent: false });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

/** What {@link probeHealthz} saw. */
export interface HealthzProbe {
  /** Every status (or error code) met, in order. */
  statuses: (number | string)[];
  /** The 99th percentile of the answers' times, in ms. */
  p99Ms: number;
}

/**
 * Asks /healthz from `from` again and again until `flood` settles, and at least `least` times
 * (so that one slow answer is not the 99th percentile); reports the statuses and the 99th
 * percentile of the times.
 */
export async function probeHealthz(
  url: string,
  from: string,
  flood: Promise<unknown>,
  least = 100,
): Promise<HealthzProbe> {
  let settled = false;
  void flood.then(
    () => (settled = true),
    () => (settled = true),
  );
  const statuses: (number | string)[] = [];
  const times: number[] = [];
  while (!settled || times.length < least) {
    const started = performance.now();
    statuses.push(await healthz(url, from));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { statuses, p99Ms: times[Math.ceil(times.length * 0.99) - 1]! };
}
