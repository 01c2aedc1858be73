// Before anything starts, every address the server will listen on is tried at once, so that a
// user whose ports are taken learns of all of them, each with the flag that moves it, in one
// message, instead of fixing one, starting again and meeting the next.
import { createServer } from 'node:net';
import { ExectlError } from '../../errors.js';
import type { ListenAddress, ServiceConfig } from '../config.js';

/** One address the server listens on, and the flag that chooses it. */
interface NamedAddress {
  flag: string;
  at: ListenAddress;
}

function hostPort({ host, port }: ListenAddress): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The fixed addresses of `config`; port 0 (any free port) is never busy. */
function fixedAddresses(config: ServiceConfig): NamedAddress[] {
  const all: [string, ListenAddress | null | undefined][] = [
    ['--listen', config.listen],
    ['--ssh-listen', config.sshListen],
    ['--reflection-listen', config.reflectionListen],
    ['--smtp-listen', config.smtpListen],
  ];
  return all.flatMap(([flag, at]) => (at != null && at.port !== 0 ? [{ flag, at }] : []));
}

/** True when another socket already listens on `at`; the probe is closed before it answers. */
function inUse(at: ListenAddress): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
    probe.listen({ port: at.port, host: at.host, exclusive: true }, () =>
      probe.close(() => resolve(false)),
    );
  });
}

function joinedList(items: string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/**
 * Refuses to start when any fixed address of `config` is already in use, naming every busy one
 * with its flag in a single `cannot_start` error. Other bind failures (no such address, no
 * permission) are left to the listener itself, whose message names the error.
 */
export async function refuseBusyAddresses(config: ServiceConfig): Promise<void> {
  const addresses = fixedAddresses(config);
  const busy = (
    await Promise.all(addresses.map(async (a) => ((await inUse(a.at)) ? [a] : [])))
  ).flat();
  if (busy.length === 0) return;
  const first = busy[0]!;
  const named = busy.map((a) => `${hostPort(a.at)} (${a.flag})`);
  const verb = busy.length === 1 ? 'is' : 'are';
  const ports = busy.length === 1 ? 'another port' : 'other ports';
  throw new ExectlError('cannot_start', `cannot listen: ${joinedList(named)} ${verb} in use`, {
    hint: `pass ${ports}, e.g. ${first.flag} ${hostPort({ host: first.at.host, port: 0 })}`,
  });
}
