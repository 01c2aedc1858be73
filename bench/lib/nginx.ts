// nginx as the proxy an operator would put in front of a server (issue 24's yardstick): one
// worker, keep-alive connections to the upstream, no access log, run with a configuration of
// its own in a private folder. Debian's `nginx` or `nginx-light` (`apt-get install -y nginx-light`).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Where Debian installs nginx; null when it is not installed. */
export function nginxPath(): string | null {
  return ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path)) ?? null;
}

/** Starts nginx proxying to `upstream` (`http://127.0.0.1:PORT`); resolves once it answers. */
export async function startNginx(
  binary: string,
  upstream: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'exectl-nginx-'));
  const port = await freePort();
  const to = new URL(upstream);
  const config = `
worker_processes 1;
daemon off;
pid ${folder}/nginx.pid;
error_log ${folder}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${folder}/body;
  proxy_temp_path ${folder}/proxy;
  fastcgi_temp_path ${folder}/fastcgi;
  uwsgi_temp_path ${folder}/uwsgi;
  scgi_temp_path ${folder}/scgi;
  keepalive_requests 1000000;
  upstream backend { server ${to.hostname}:${to.port}; keepalive 32; keepalive_requests 1000000; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`;
  await writeFile(join(folder, 'nginx.conf'), config);
  const child: ChildProcess = spawn(binary, ['-p', folder, '-c', join(folder, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Bounded: nginx answers within a few hundred milliseconds, or it failed (see its stderr).
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    const up = await fetch(url).then(
      (res) => res.arrayBuffer().then(() => true),
      () => false,
    );
    if (up) break;
    if (i === 100) throw new Error('nginx did not answer within 10 s');
    await sleep(100);
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      await rm(folder, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
