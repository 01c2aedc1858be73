// The resident memory of this process, where the tests run the server: how much a client that
// reads nothing makes it grow.
import { setTimeout as sleep } from 'node:timers/promises';

const MB = 1024 * 1024;

/** Samples this process's RSS every 100 ms for `ms`; resolves with the largest growth in MB. */
export async function rssGrowthOver(ms: number, baseline: number): Promise<number> {
  let peak = process.memoryUsage().rss;
  for (const end = Date.now() + ms; Date.now() < end;) {
    await sleep(100);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  return (peak - baseline) / MB;
}

/** This process's RSS growth over `baseline` right now, in MB. */
export function rssGrowth(baseline: number): number {
  return (process.memoryUsage().rss - baseline) / MB;
}
