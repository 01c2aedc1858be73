// Keeps the rooms of docs/architecture.md true by reading the source as text: who may
// import whom, and which room alone may touch SQL, child processes, env/argv and exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((abs) => ({
  rel: relative(SRC, abs),
  text: readFileSync(abs, 'utf8'),
}));

/** Every module specifier a file imports (static and dynamic), resolved relative to src/. */
function imports(file: { rel: string; text: string }): string[] {
  const specs = [
    ...file.text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"`]*?from\s*['"]([^'"]+)['"]/g),
    ...file.text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...file.text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g),
  ].map((m) => m[1]!);
  return specs.map((s) =>
    s.startsWith('.') ? relative(SRC, resolve(SRC, dirname(file.rel), s)) : s,
  );
}

function room(rel: string): string {
  return rel.split('/')[0]!;
}

test('src/ has source files to check', () => {
  assert.ok(files.length > 0);
});

type SourceFile = { rel: string; text: string };

/** The service root holds what the service is made of; everything else lives in a room. */
const SERVICE_ROOT = new Set([
  'index.ts',
  'boot.ts',
  'public-types.ts',
  'config.ts',
  'deps.ts',
  'request-log.ts',
  'accounts.ts',
]);

/**
 * The import rules of ARCHITECTURE.md, as one sentence per broken rule: token/ and text-views/
 * import nothing from cli/ or service/; service/ never imports cli/; cli/ reaches service/ only through
 * service/index.ts, and only from its serve command (files under or named `commands/serve`);
 * no file sits in the service root but those listed.
 */
function roomViolations(sources: readonly SourceFile[]): string[] {
  const found: string[] = [];
  for (const f of sources) {
    const specs = imports(f);
    if (room(f.rel) === 'token') {
      for (const s of specs.filter((s) => /^(cli|service)\//.test(s))) {
        found.push(`${f.rel} imports ${s}: token/ is a library of its own`);
      }
    }
    if (room(f.rel) === 'text-views') {
      for (const s of specs.filter((s) => /^(cli|service)\//.test(s))) {
        found.push(`${f.rel} imports ${s}: text-views/ is shared by the client and the service`);
      }
    }
    if (room(f.rel) === 'inspection') {
      for (const s of specs.filter((s) => /^(cli|service)\//.test(s))) {
        found.push(`${f.rel} imports ${s}: inspection/ is shared by the client and the service`);
      }
    }
    if (room(f.rel) === 'ui') {
      for (const s of specs.filter((s) => /^(cli|service|token|library|inspection)\//.test(s))) {
        found.push(`${f.rel} imports ${s}: ui/ runs in the browser, a client of the dashboard API`);
      }
    }
    if (room(f.rel) === 'service') {
      for (const s of specs.filter((s) => s.startsWith('cli/'))) {
        found.push(`${f.rel} imports ${s}: service/ never imports cli/`);
      }
      const parts = f.rel.split('/');
      if (parts.length === 2 && !SERVICE_ROOT.has(parts[1]!)) {
        found.push(`${f.rel} is in the service root: give it a room`);
      }
    }
    if (room(f.rel) === 'library') {
      for (const s of specs.filter((s) => /^(cli|service)\//.test(s))) {
        if (LIBRARY_DOORS.has(s)) continue;
        found.push(
          `${f.rel} imports ${s}: the library reaches the service through service/index.ts`,
        );
      }
    }
    if (f.rel.startsWith('service/') && !f.rel.startsWith('service/vm/')) {
      for (const s of specs.filter((s) => s.startsWith('service/vm/'))) {
        if (s === 'service/vm/index.js' || s === 'service/vm/contract.js') continue;
        found.push(`${f.rel} imports ${s}: the service reaches vm/ through its index.ts`);
      }
    }
    if (f.rel.startsWith('service/vm/')) found.push(...vmViolations(f.rel, specs));
    if (room(f.rel) === 'cli') {
      const serve = f.rel.includes('commands/serve');
      for (const s of specs.filter((s) => s.startsWith('service/'))) {
        if (!serve) found.push(`${f.rel} imports ${s}: only serve reaches the service`);
        else if (s.replace(/\.js$/, '') !== 'service/index') {
          found.push(`${f.rel} imports ${s}: the CLI goes through service/index.ts`);
        }
      }
    }
  }
  return found;
}

/**
 * The library's doors into the service: service/index.ts, and for the types its public
 * declarations name, service/public-types.ts (which reaches nothing of store/: a consumer's
 * TypeScript would load better-sqlite3's missing types). It reaches nothing of cli/.
 */
const LIBRARY_DOORS = new Set(['service/index.js', 'service/public-types.js']);

/**
 * vm/'s own rules: it is given what it needs (no deps.ts, no reflection/); contract.ts imports
 * nothing of vm/; a room of vm/ (process/, sandbox/, machine/, network/, disk/, scripts/...)
 * reaches another only through that room's index.ts.
 */
function vmViolations(rel: string, specs: readonly string[]): string[] {
  const found: string[] = [];
  const inVm = rel.slice('service/vm/'.length);
  const ownRoom = inVm.includes('/') ? inVm.split('/')[0] : null;
  for (const s of specs) {
    if (s === 'service/deps.js' || s.startsWith('service/reflection/')) {
      found.push(`${rel} imports ${s}: vm/ is given what it needs`);
    }
    if (!s.startsWith('service/vm/')) continue;
    const target = s.slice('service/vm/'.length);
    if (inVm === 'contract.ts')
      found.push(`${rel} imports ${s}: the contract imports nothing of vm/`);
    const targetRoom = target.includes('/') ? target.split('/')[0] : null;
    if (targetRoom !== null && targetRoom !== ownRoom && target !== `${targetRoom}/index.js`) {
      found.push(`${rel} imports ${s}: a room of vm/ is reached through its index.ts`);
    }
  }
  return found;
}

const violations = roomViolations(files);
const violationsOf = (prefix: string) => violations.filter((v) => v.startsWith(prefix));

test('token/ imports nothing from cli/ or service/', () => {
  assert.deepEqual(violationsOf('token/'), []);
});

test('text-views/ imports nothing from cli/ or service/', () => {
  assert.deepEqual(violationsOf('text-views/'), []);
});

test('service/ never imports cli/, and its root holds only what the service is made of', () => {
  assert.deepEqual(violationsOf('service/'), []);
});

test('library/ reaches service/ only through its doors (index.ts, public-types.ts), never cli/', () => {
  assert.deepEqual(violationsOf('library/'), []);
});

test('cli/ reaches service/ only through service/index.ts, from its serve command', () => {
  assert.deepEqual(violationsOf('cli/'), []);
});

test('every import rule holds', () => {
  assert.deepEqual(violations, []);
});

// The rules must be able to fail: each broken rule, on a made-up file, is reported.
const BROKEN: [SourceFile, string][] = [
  [
    {
      rel: 'cli/commands/serve-run.ts',
      text: "import { openStore } from '../../service/store/index.js';",
    },
    'cli/commands/serve-run.ts imports service/store/index.js: the CLI goes through service/index.ts',
  ],
  [
    {
      rel: 'cli/commands/serve/run.ts',
      text: "import { checkEmail } from '../../../service/rules/validate.js';",
    },
    'cli/commands/serve/run.ts imports service/rules/validate.js: the CLI goes through service/index.ts',
  ],
  [
    { rel: 'cli/commands/run.ts', text: "import { createService } from '../../service/index.js';" },
    'cli/commands/run.ts imports service/index.js: only serve reaches the service',
  ],
  [
    { rel: 'cli/program.ts', text: "const m = await import('../service/config.js');" },
    'cli/program.ts imports service/config.js: only serve reaches the service',
  ],
  [
    { rel: 'service/helpers.ts', text: '' },
    'service/helpers.ts is in the service root: give it a room',
  ],
  [
    { rel: 'service/http/x.ts', text: "import { main } from '../../cli/main.js';" },
    'service/http/x.ts imports cli/main.js: service/ never imports cli/',
  ],
  [
    { rel: 'text-views/x.ts', text: "import type { VmRecord } from '../service/store/index.js';" },
    'text-views/x.ts imports service/store/index.js: text-views/ is shared by the client and the service',
  ],
  [
    { rel: 'token/x.ts', text: "export { DEFAULTS } from '../service/config.js';" },
    'token/x.ts imports service/config.js: token/ is a library of its own',
  ],
];

BROKEN.push(
  [
    { rel: 'ui/x.ts', text: "import { dispatch } from '../service/dispatch/dispatcher.js';" },
    'ui/x.ts imports service/dispatch/dispatcher.js: ui/ runs in the browser, a client of the dashboard API',
  ],
  [
    { rel: 'inspection/x.ts', text: "import { DEFAULTS } from '../service/config.js';" },
    'inspection/x.ts imports service/config.js: inspection/ is shared by the client and the service',
  ],
  [
    { rel: 'library/x.ts', text: "import { openStore } from '../service/store/index.js';" },
    'library/x.ts imports service/store/index.js: the library reaches the service through service/index.ts',
  ],
  [
    { rel: 'library/x.ts', text: "import { remoteCommandLine } from '../cli/exec/line.js';" },
    'library/x.ts imports cli/exec/line.js: the library reaches the service through service/index.ts',
  ],
  [
    { rel: 'service/http/x.ts', text: "import type { VmSpec } from '../vm/runtime.js';" },
    'service/http/x.ts imports service/vm/runtime.js: the service reaches vm/ through its index.ts',
  ],
  [
    { rel: 'service/vm/x.ts', text: "import type { ServiceDeps } from '../deps.js';" },
    'service/vm/x.ts imports service/deps.js: vm/ is given what it needs',
  ],
  [
    {
      rel: 'service/vm/disk/x.ts',
      text: "import { reflectionUrlOf } from '../../reflection/urls.js';",
    },
    'service/vm/disk/x.ts imports service/reflection/urls.js: vm/ is given what it needs',
  ],
  [
    { rel: 'service/vm/contract.ts', text: "import type { VmSpec } from './runtime.js';" },
    'service/vm/contract.ts imports service/vm/runtime.js: the contract imports nothing of vm/',
  ],
  [
    {
      rel: 'service/vm/machine/x.ts',
      text: "import { createDisk } from '../disk/folder-disk.js';",
    },
    'service/vm/machine/x.ts imports service/vm/disk/folder-disk.js: a room of vm/ is reached through its index.ts',
  ],
  [
    { rel: 'service/vm/x.ts', text: "import { SlirpNetwork } from './network/slirp4netns.js';" },
    'service/vm/x.ts imports service/vm/network/slirp4netns.js: a room of vm/ is reached through its index.ts',
  ],
);

test('vm/ rooms may use their own files, and others through index.ts', () => {
  const ok = [
    {
      rel: 'service/vm/machine/x.ts',
      text: "import { a } from './machine-boot.js';\nimport { b } from '../disk/index.js';\nimport { c } from '../contract.js';",
    },
    {
      rel: 'service/vm/x.ts',
      text: "import { d } from './disk/index.js';\nimport { e } from './runtime.js';",
    },
    { rel: 'service/store/x.ts', text: "import type { VmLimits } from '../vm/contract.js';" },
    { rel: 'library/x.ts', text: "import { createService } from '../service/index.js';" },
    { rel: 'library/x.ts', text: "import type { FaultSpec } from '../service/public-types.js';" },
  ];
  assert.deepEqual(roomViolations(ok), []);
});

for (const [file, sentence] of BROKEN) {
  test(`the import rules catch: ${sentence}`, () => {
    assert.deepEqual(roomViolations([file]), [sentence]);
  });
}

test('the serve command may import service/index.ts, from either layout', () => {
  const ok = [
    {
      rel: 'cli/commands/serve-run.ts',
      text: "import { createService } from '../../service/index.js';",
    },
    {
      rel: 'cli/commands/serve/run.ts',
      text: "import { DEFAULTS } from '../../../service/index.js';",
    },
    { rel: 'service/accounts.ts', text: '' },
  ];
  assert.deepEqual(roomViolations(ok), []);
});

/** vm/'s root is its face: the contract, the runtime contract, the index and the id ranges. */
const VM_ROOT = new Set(['contract.ts', 'index.ts', 'runtime.ts', 'id-ranges.ts']);

/**
 * Rooms put right: vm/'s root holds only its face; the VM proxy lives in proxy/, not in the
 * HTTP listener's room; the SSH lobby and the VMs' sessions meet only in ssh/'s root.
 */
function roomPlacementViolations(sources: readonly SourceFile[]): string[] {
  const found: string[] = [];
  for (const f of sources) {
    const parts = f.rel.split('/');
    if (parts[0] === 'service' && parts[1] === 'vm' && parts.length === 3) {
      if (!VM_ROOT.has(parts[2]!)) found.push(`${f.rel} is in vm/'s root: put it in its room`);
    }
    if (
      f.rel.startsWith('service/http/') &&
      /\/(vm-proxy|proxy-[a-z-]+|upstream-[a-z-]+)\.ts$/.test(f.rel)
    ) {
      found.push(`${f.rel} is proxy code: it lives in service/proxy/`);
    }
    for (const [from, to] of [
      ['service/ssh/lobby/', 'service/ssh/vm-sessions/'],
      ['service/ssh/vm-sessions/', 'service/ssh/lobby/'],
    ] as const) {
      if (!f.rel.startsWith(from)) continue;
      for (const s of imports(f).filter((s) => s.startsWith(to))) {
        found.push(`${f.rel} imports ${s}: the lobby and VM sessions meet in ssh/'s root`);
      }
    }
  }
  return found;
}

test('vm/, proxy/ and ssh/ keep their rooms', () => {
  assert.deepEqual(roomPlacementViolations(files), []);
});

test('the room placement rules catch a loose vm/ file, proxy code in http/, lobby ↔ VM sessions', () => {
  assert.deepEqual(
    roomPlacementViolations([
      { rel: 'service/vm/setup-jobs.ts', text: '' },
      { rel: 'service/vm/contract.ts', text: '' },
      { rel: 'service/http/proxy-auth.ts', text: '' },
      { rel: 'service/http/exec-handler.ts', text: '' },
      {
        rel: 'service/ssh/lobby/repl.ts',
        text: "import { a } from '../vm-sessions/vm-target.js';",
      },
      {
        rel: 'service/ssh/connection.ts',
        text: "import { a } from './vm-sessions/vm-session.js';",
      },
    ]),
    [
      "service/vm/setup-jobs.ts is in vm/'s root: put it in its room",
      'service/http/proxy-auth.ts is proxy code: it lives in service/proxy/',
      "service/ssh/lobby/repl.ts imports service/ssh/vm-sessions/vm-target.js: the lobby and VM sessions meet in ssh/'s root",
    ],
  );
});

test('only service/store/ imports better-sqlite3', () => {
  for (const f of files) {
    if (f.rel.startsWith('service/store/')) continue;
    assert.ok(!imports(f).includes('better-sqlite3'), `${f.rel} imports better-sqlite3`);
  }
});

// The client may ask a local tool (e.g. `git config user.email` for serve's default owner);
// inside the service, only vm/ starts processes, and all of vm/ through one helper, so what a
// child inherits (env, cwd, fds, session) is decided in one file.
const SPAWN_HELPER = 'service/vm/process/spawn-host.ts';

/** One sentence per file outside cli/ (and other than the spawn helper) importing child_process. */
function childProcessViolations(list: { rel: string; text: string }[]): string[] {
  return list
    .filter((f) => f.rel !== SPAWN_HELPER && room(f.rel) !== 'cli')
    .filter((f) => imports(f).some((s) => s === 'node:child_process' || s === 'child_process'))
    .map((f) => `${f.rel} imports child_process: start processes through ${SPAWN_HELPER}`);
}

test('only the spawn helper of vm/ (and the client) import child_process', () => {
  assert.deepEqual(childProcessViolations(files), []);
});

test('the child_process rule catches a vm/ file spawning by itself, and nothing else', () => {
  const list = [
    { rel: 'service/vm/disk/x.ts', text: "import { spawn } from 'node:child_process';" },
    { rel: 'service/vm/x.ts', text: "const { spawn } = await import('child_process');" },
    { rel: 'service/http/x.ts', text: "import { execFile } from 'node:child_process';" },
    { rel: SPAWN_HELPER, text: "import { spawn } from 'node:child_process';" },
    { rel: 'cli/commands/serve/x.ts', text: "import { execFile } from 'node:child_process';" },
    { rel: 'service/vm/disk/y.ts', text: "import { spawnHost } from '../process/index.js';" },
  ];
  assert.deepEqual(childProcessViolations(list), [
    `service/vm/disk/x.ts imports child_process: start processes through ${SPAWN_HELPER}`,
    `service/vm/x.ts imports child_process: start processes through ${SPAWN_HELPER}`,
    `service/http/x.ts imports child_process: start processes through ${SPAWN_HELPER}`,
  ]);
});

test('only cli/ reads process.env or process.argv', () => {
  for (const f of files) {
    if (room(f.rel) === 'cli') continue;
    assert.ok(!/process\.(env|argv)\b/.test(f.text), `${f.rel} reads process.env/argv`);
  }
});

test('only cli/main.ts decides the exit code', () => {
  for (const f of files) {
    if (f.rel === 'cli/main.ts') continue;
    assert.ok(!/process\.(exit|exitCode)\b/.test(f.text), `${f.rel} sets the exit code`);
  }
});

/**
 * The admin socket is a transport (SPEC §7): its files parse, run and answer, and only
 * accounts-admin.ts and mail-admin.ts, which the offline `serve accounts` and `serve mail` run
 * too, work on the store.
 */
function adminTransportViolations(sources: readonly SourceFile[]): string[] {
  return sources
    .filter(
      (f) => f.rel.startsWith('service/admin/') && !/\/(accounts|mail)-admin\.ts$/.test(f.rel),
    )
    .filter((f) => /\bstore\.\w+\(|\bensureAccount\(/.test(f.text))
    .map((f) => `${f.rel} works on the store: that belongs in service/admin/accounts-admin.ts`);
}

test('the admin socket holds no business logic: only accounts-admin.ts works on the store', () => {
  assert.deepEqual(adminTransportViolations(files), []);
  assert.deepEqual(
    adminTransportViolations([
      { rel: 'service/admin/socket.ts', text: 'return store.listAccounts();' },
      { rel: 'service/admin/accounts-admin.ts', text: 'return store.listAccounts();' },
    ]),
    ['service/admin/socket.ts works on the store: that belongs in service/admin/accounts-admin.ts'],
  );
});
