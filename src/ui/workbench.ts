// The token workbench: decode and check a pasted token (what `exectl inspect` reports, checked
// against the account's own keys on the server), and make a svc1 token with chosen commands
// and expiry (`ssh-key generate-api-key`) with the curl line that uses it. The key that signs
// it is made and thrown away on the server: no private key ever reaches the page.
import { ApiError, inspect, q, run, sessionTokenSecondsLeft } from './api.js';
import { expiryChoices, formMessage } from './expiry-choices.js';
import { announce, field, fill, h } from './dom.js';
import type { Section } from './main.js';

export const showWorkbench: Section = (main) => {
  const pasted = h('textarea', { id: 'token-input', name: 'token', spellcheck: 'false' });
  const report = h('pre', { 'aria-live': 'polite' });
  const label = field('Label', { name: 'label' });
  const cmds = field('Commands (comma-separated; empty: the defaults)', { name: 'cmds' });
  // Filled once the session's token lifetime is known: only expiries it can grant (SPEC §11).
  const exp = h('select', { name: 'exp' });
  void sessionTokenSecondsLeft()
    .then((left) => {
      const { choices, selected } = expiryChoices(left);
      fill(
        exp,
        ...choices.map((c) =>
          h('option', { value: c.value, selected: c.value === selected }, c.label),
        ),
      );
    })
    .catch((err: unknown) =>
      announce(err instanceof ApiError ? `Error: ${err.message}` : String(err), true),
    );
  const made = h('div', { 'aria-live': 'polite' });
  const decode = async (ev: Event) => {
    ev.preventDefault();
    try {
      fill(report, JSON.stringify(await inspect(pasted.value.trim()), null, 2));
    } catch (err) {
      announce(err instanceof ApiError ? `Error: ${err.message}` : String(err), true);
    }
  };
  const generate = async (ev: Event) => {
    ev.preventDefault();
    const words = ['ssh-key', 'generate-api-key', '--exp', exp.value];
    if (label.input.value !== '') words.push('--label', q(label.input.value));
    if (cmds.input.value.trim() !== '')
      words.push('--cmds', q(cmds.input.value.replace(/\s+/g, '')));
    let data: { token: string; expires_at: string | null };
    announce('Making a token…');
    try {
      data = await run(words.join(' '));
    } catch (err) {
      // The command's messages name its flags; the page names its fields.
      announce(err instanceof ApiError ? `Error: ${formMessage(err.message)}` : String(err), true);
      return;
    }
    announce('Token made');
    const curl = `curl -X POST ${location.origin}/exec -H 'Authorization: Bearer ${data.token}' -d whoami`;
    fill(
      made,
      h('p', {}, `Expires: ${data.expires_at ?? 'never'}`),
      h(
        'label',
        {},
        h('span', {}, 'Token'),
        h('input', { type: 'text', readonly: true, value: data.token, name: 'made-token' }),
      ),
      h(
        'label',
        {},
        h('span', {}, 'curl line'),
        h('textarea', { readonly: true, name: 'curl' }, curl),
      ),
    );
  };
  fill(
    main,
    h('h2', {}, 'Tokens'),
    h(
      'form',
      { 'aria-label': 'Decode a token', onsubmit: (ev: Event) => void decode(ev) },
      h('label', { for: 'token-input' }, 'Token to decode and check'),
      pasted,
      h('button', { type: 'submit' }, 'Decode'),
    ),
    report,
    h(
      'form',
      { 'aria-label': 'Make a svc1 token', onsubmit: (ev: Event) => void generate(ev) },
      label.wrap,
      cmds.wrap,
      h('label', {}, h('span', {}, 'Expires in'), exp),
      h('button', { type: 'submit' }, 'Make token'),
    ),
    made,
  );
};
