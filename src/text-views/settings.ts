// Text views of the commands that set a VM's or an account's surroundings (SPEC §3): domain ...
// and defaults ....
import { escapeControls } from './escape.js';
import { textTable } from './table.js';
import { view } from './view.js';

interface DomainEntry {
  vm_name: string;
  domain: string;
  wildcard: boolean;
  added_at: string;
}

/** A domain as it routes: `*.example.com` for a wildcard. */
const shown = (d: { domain: string; wildcard?: boolean }) =>
  d.wildcard === true ? `*.${d.domain}` : d.domain;

/** `domain add` and `domain rm`. */
export const domainChangeView = view<{
  vm_name: string;
  domain: string;
  wildcard?: boolean;
  status: string;
  dns?: string;
}>(
  (data) =>
    `${data.status === 'added' ? 'added' : 'removed'} ${shown(data)} ${data.status === 'added' ? 'to' : 'from'} ${data.vm_name}` +
    (data.dns === undefined ? '\n' : ` (DNS ${data.dns})\n`),
);

export const domainListView = view<{ domains: DomainEntry[] }>((data, _flags, width) =>
  textTable(
    ['vm', 'domain', 'added'],
    data.domains.map((d) => [d.vm_name, shown(d), d.added_at]),
    'no domains',
    width,
  ),
);

/** Each default as `domain key` and its value, a multi-line value indented under it. */
export const defaultsReadView = view<{ defaults: Record<string, Record<string, string>> }>(
  (data) => {
    const lines = Object.entries(data.defaults).flatMap(([domain, keys]) =>
      Object.entries(keys).map(
        ([key, value]) => `${domain} ${key}:\n${indent(escapeControls(value, true))}`,
      ),
    );
    return lines.length === 0 ? 'no defaults\n' : lines.join('');
  },
);

export const defaultChangeView = view<{ domain: string; key: string; status: string }>(
  (data) => `${data.status} ${data.domain} ${data.key}\n`,
);

function indent(text: string): string {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return `${body
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')}\n`;
}
