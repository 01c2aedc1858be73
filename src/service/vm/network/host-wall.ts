// The host's wall around every VM's network (SPEC §4: no host service on any of the host's
// addresses answers a VM). slirp4netns carries a VM's outbound connections from the host's
// network namespace, so without a rule it reaches every host service bound to 0.0.0.0 or `::`
// at the host's own addresses (its `--disable-host-loopback` cuts off 127/8 and 10.0.2.2 only).
// It runs as ids of exectl's own (slirp4netns.ts), and one nftables table of ours refuses
// those ids every local address (scripts/network-wall.nft): a rule outside the VM's reach.
// Loaded at each server start, before any VM's network is up; where it cannot be, the server
// names the missing guarantee once.
import { isIPv4 } from 'node:net';
import { readFile } from 'node:fs/promises';
import { EXECTL_IDS, takenHostIds } from '../id-ranges.js';
import { DEFAULT_PATH, findExecutable, runHost } from '../process/index.js';
import { scriptPath } from '../scripts/index.js';

/** The name of exectl's own table (`table inet exectl`). */
export const WALL_TABLE = 'exectl';

const WHAT_IS_OPEN =
  "VMs can reach every host service listening on the host's own addresses (not loopback)";

/** Where the wall's inputs come from (tests give their own). */
export interface WallSources {
  /** The nft program, or undefined when nftables is not installed. */
  nft: string | undefined;
  /** The ids the rule must never concern: real users, groups, delegated ranges. */
  taken(): Promise<Array<[number, number]>>;
  /** The text of the host's resolv.conf. */
  resolvConf(): Promise<string>;
}

/** The host's own sources. */
export function hostWallSources(): WallSources {
  return {
    nft: findExecutable('nft'),
    taken: takenHostIds,
    resolvConf: () => readFile('/etc/resolv.conf', 'utf8').catch(() => ''),
  };
}

/**
 * Loads exectl's nftables table, which refuses every address of the host to the VMs' network
 * helpers, and checks that it is there. Resolves with undefined when it holds, else with a
 * one-line warning naming the missing guarantee (the server prints it once at start).
 */
export async function loadNetworkWall(
  sources: WallSources = hostWallSources(),
): Promise<string | undefined> {
  if (sources.nft === undefined) {
    return `${WHAT_IS_OPEN}: nft was not found in ${DEFAULT_PATH} (install nftables)`;
  }
  const ids = wallIdSet(await sources.taken());
  if (ids === undefined) return `${WHAT_IS_OPEN}: every id of exectl's is a host user's`;
  const resolvers = resolverSet(await sources.resolvConf());
  const env = { PATH: DEFAULT_PATH };
  try {
    await runHost(
      sources.nft,
      [
        '-D',
        `exectl_ids=${ids}`,
        '-D',
        `resolvers=${resolvers}`,
        '-f',
        scriptPath('network-wall.nft'),
      ],
      { env, stdout: 'pipe' },
    );
    const table = await runHost(sources.nft, ['list', 'table', 'inet', WALL_TABLE], {
      env,
      stdout: 'pipe',
    });
    if (!table.includes('fib daddr type')) return `${WHAT_IS_OPEN}: nft did not keep its rule`;
    return undefined;
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return `${WHAT_IS_OPEN}: exectl's nftables rule could not be loaded (${why})`;
  }
}

/**
 * The ids of {@link EXECTL_IDS} that no host user, group or delegated range has, as an nft
 * interval set (`{ a-b, c-d }`); undefined when none is left.
 */
export function wallIdSet(taken: ReadonlyArray<readonly [number, number]>): string | undefined {
  // Half-open [start, end) intervals, as takenHostIds gives them.
  let free: Array<[number, number]> = [[EXECTL_IDS[0], EXECTL_IDS[1] + 1]];
  for (const [a, b] of taken) {
    free = free.flatMap(([start, end]): Array<[number, number]> => {
      if (b <= start || a >= end) return [[start, end]];
      const parts: Array<[number, number]> = [];
      if (a > start) parts.push([start, a]);
      if (b < end) parts.push([b, end]);
      return parts;
    });
  }
  if (free.length === 0) return undefined;
  const words = free.map(([start, end]) =>
    end - start === 1 ? `${start}` : `${start}-${end - 1}`,
  );
  return `{ ${words.join(', ')} }`;
}

/**
 * The IPv4 name servers of a resolv.conf text as an nft set: slirp4netns forwards the VM's DNS
 * (10.0.2.3) to the first of them, or to 127.0.0.1 when there is none (libslirp).
 */
export function resolverSet(resolvConf: string): string {
  const servers = resolvConf
    .split('\n')
    .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
    .filter((address): address is string => address !== undefined && isIPv4(address));
  return `{ ${[...new Set(servers.length > 0 ? servers : ['127.0.0.1'])].join(', ')} }`;
}
