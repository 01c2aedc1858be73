import type { ServiceConfig } from '../../src/service/index.js';

/**
 * The one service configuration tests start from: loopback listeners on free ports, SSH off,
 * the plain process runtime, no rate limit, logs dropped, SPEC's 30 s deadline. Pass only what
 * a test is about; `dataDir` has no default (each test owns its folder).
 */
export function testServiceConfig(
  overrides: Partial<ServiceConfig> & Pick<ServiceConfig, 'dataDir'>,
): ServiceConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    sshListen: null,
    reflectionListen: { host: '127.0.0.1', port: 0 },
    domain: 'localhost',
    tls: null,
    runtime: 'process',
    rateLimit: null,
    log: () => {},
    commandDeadlineMs: 30_000,
    ...overrides,
  };
}
