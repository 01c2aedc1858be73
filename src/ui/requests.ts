// The live request log: the signed-in account's own requests, newest first, read every two
// seconds, filtered by status class and command.
import { requestsSince, type RequestRow } from './api.js';
import { fill, h, table } from './dom.js';
import type { Section } from './main.js';
import { showFailure } from './refusals.js';

const POLL_MS = 2_000;
/** Rows kept in the page. */
const KEPT = 500;

export const showRequests: Section = (main) => {
  const rows: RequestRow[] = [];
  let since = 0;
  const status = h(
    'select',
    { name: 'status', onchange: () => draw() },
    ...['all', '2xx', '3xx', '4xx', '5xx'].map((s) => h('option', { value: s }, s)),
  );
  const command = h('input', { type: 'search', name: 'command', oninput: () => draw() });
  const list = h('div');
  const draw = () => {
    const cls = status.value;
    const cmd = command.value.trim();
    const shown = rows
      .filter((r) => cls === 'all' || String(r.status)[0] === cls[0])
      .filter((r) => cmd === '' || r.command.includes(cmd))
      .slice()
      .reverse();
    fill(
      list,
      table(
        `Your requests (${shown.length})`,
        ['Time', 'Key', 'Via', 'Command', 'Status', 'Duration'],
        shown.map((r) => [
          r.time,
          h('code', {}, r.key),
          r.via,
          r.command,
          String(r.status),
          `${r.duration_ms} ms`,
        ]),
      ),
    );
  };
  const poll = async () => {
    try {
      const fresh = await requestsSince(since);
      if (fresh.length === 0) return;
      rows.push(...fresh);
      rows.splice(0, Math.max(0, rows.length - KEPT));
      since = fresh[fresh.length - 1]!.seq;
      draw();
    } catch (err) {
      showFailure(list, err);
    }
  };
  fill(
    main,
    h('h2', {}, 'Requests'),
    h(
      'div',
      { role: 'group', 'aria-label': 'Filters' },
      h('label', {}, h('span', {}, 'Status'), status),
      h('label', {}, h('span', {}, 'Command contains'), command),
    ),
    list,
  );
  draw();
  void poll();
  const timer = setInterval(() => void poll(), POLL_MS);
  return () => clearInterval(timer);
};
