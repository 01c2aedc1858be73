// What startServer takes (SPEC §10: every `serve` flag as an option), apart from how it becomes
// the service's configuration (server-config.ts): this file is part of the package's public
// declarations, so it names only the service's public types.
import type { LogSink } from '../service/public-types.js';

/** What `startServer` takes; every field is optional. */
export interface StartServerOptions {
  /** HTTP listener for /exec and the VM proxy. Default `127.0.0.1:0` (a free port). */
  listen?: string;
  /** SSH listener, or `off`. Default `127.0.0.1:0`. */
  sshListen?: string;
  /** Reflection listener. Default `127.0.0.1:0`. */
  reflectionListen?: string;
  /** SMTP listener taking mail for VMs (`serve --smtp-listen`), or `off`. Default `127.0.0.1:0`. */
  smtpListen?: string;
  /** A data folder to use and keep (its parent must exist). Default: a temporary one, removed by `stop()`. */
  data?: string;
  /** Default `localhost` (`exe.dev` with `compat: 'exe.dev'`). */
  domain?: string;
  /** The domain of VM tokens and VM hosts. Default: `domain` (`exe.xyz` with `compat`). */
  vmDomain?: string;
  /**
   * As `serve --compat`: also speak the real service's names (`exe0.` tokens, `exe0-to-exe1`,
   * `X-ExeDev-*` proxy headers, `X-Exe-Exit`; SPEC §12), for code written for it. Default none.
   */
  compat?: 'exe.dev';
  /**
   * The owner account, made at each start if missing and given the owner key if it lacks it
   * (beside a seed's accounts). Default `owner@localhost`.
   */
  owner?: string;
  /** The owner's private key file (unencrypted). Default: a new ed25519 pair. */
  ownerKey?: string;
  /** More public key lines for the owner account, beside `ownerKey`'s. */
  authorizedKeys?: string[];
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * VM runtime. Default `process`, unlike `exectl serve`: VM commands run as plain processes
   * of your user — a test suite's own code runs so anyway, and a server starts in
   * milliseconds. Choose `auto` or `bwrap` to test under the sandbox.
   */
  runtime?: 'auto' | 'bwrap' | 'process';
  /** `N/DURATION`, or `0` for none. Default `0`: tests send many requests with one key. */
  rateLimit?: string;
  /** A seed (exectl-serve(1), SEED FILE): its JSON text or the parsed object. */
  seed?: string | object;
  /** Receives the server's log lines. Default: none are kept. */
  log?: LogSink;
  /** The per-command deadline in ms. Default 30000 (SPEC §2). */
  commandDeadlineMs?: number;
  /**
   * As `serve --allow-private-targets`: integrations may forward to loopback, link-local and
   * this host's own addresses, such as a stub API your test starts on 127.0.0.1. Default false.
   */
  allowPrivateTargets?: boolean;
  /** Most memory a VM may get, as `resize` takes sizes (`8G`). Default: the host's memory. */
  maxVmMemory?: string;
  /** Most CPUs a VM may get (`4`, `0.5`). Default: the host's CPU count. */
  maxVmCpus?: string;
  /** Largest VM disk (`50G`). Default: the size of the data folder's file system. */
  maxVmDisk?: string;
  /** As `serve --max-vms-per-account`: the most VMs one account may own. Default 32. */
  maxVmsPerAccount?: number;
  /** As `serve --registry-mirror`: Docker Hub images are pulled from this mirror. */
  registryMirror?: string;
  /** As `serve --insecure-registry`: registries pulled from without TLS verification. */
  insecureRegistries?: string[];
}
