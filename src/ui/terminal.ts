// The Terminal section: a shell in a running VM (the one `ssh <vm>` gives over SSH), drawn by
// xterm.js, over the dashboard's WebSocket. Resizing the box resizes the VM's pty.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { announce, field, fill, h } from './dom.js';
import type { Section } from './main.js';

/** The largest frame the server takes from the page (dashboard/terminal.ts MAX_FRAME). */
const FRAME_BYTES = 64 * 1024;

export const showTerminal: Section = (main, _open, vm) => {
  const name = field('VM', { name: 'vm', value: vm ?? '' });
  const box = h('div', { id: 'terminal', role: 'region', 'aria-label': 'Terminal' });
  let close = () => {};
  const form = h(
    'form',
    {
      'aria-label': 'Open a terminal',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        close();
        close = connect(box, name.input.value);
      },
    },
    name.wrap,
    h('button', { type: 'submit' }, 'Connect'),
  );
  fill(main, h('h2', {}, 'Terminal'), form, box);
  if (vm !== undefined) close = connect(box, vm);
  return () => close();
};

/** Opens a shell in `vm` inside `box`; returns what closes it. */
function connect(box: HTMLElement, vm: string): () => void {
  fill(box);
  const term = new Terminal({ cursorBlink: true, screenReaderMode: true });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(box);
  fit.fit();
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = new URLSearchParams({ vm, cols: String(term.cols), rows: String(term.rows) });
  const ws = new WebSocket(`${scheme}://${location.host}/_/api/terminal?${query}`);
  ws.binaryType = 'arraybuffer';
  const encoder = new TextEncoder();
  ws.onopen = () => {
    announce(`Connected to ${vm}`);
    term.focus();
  };
  ws.onmessage = (ev: MessageEvent<ArrayBuffer>) => term.write(new Uint8Array(ev.data));
  ws.onclose = (ev) => {
    announce(
      ev.code === 1000 ? `Shell in ${vm} ended (${ev.reason})` : `Terminal of ${vm} closed`,
      ev.code !== 1000,
    );
  };
  term.onData((data) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    // A paste goes in frames the server takes (64 KiB at most each; a larger one closes it).
    const bytes = encoder.encode(data);
    for (let at = 0; at < bytes.length; at += FRAME_BYTES) {
      ws.send(bytes.subarray(at, at + FRAME_BYTES));
    }
  });
  term.onResize(({ cols, rows }) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols, rows }));
  });
  // The box is resizable (CSS `resize: both`) and follows the window: the pty follows the box.
  const observer = new ResizeObserver(() => fit.fit());
  observer.observe(box);
  return () => {
    observer.disconnect();
    ws.close();
    term.dispose();
  };
}
