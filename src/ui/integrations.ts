// The integrations section: `integrations list`, and removing one.
import { q, run } from './api.js';
import { act } from './actions.js';
import { button, fill, h, table } from './dom.js';
import type { Section } from './main.js';
import { showFailure } from './refusals.js';

/** As `integrations list` answers it (the real service's shape). */
interface Integration {
  name: string;
  type: string;
  comment: string;
  /** Only the names of its headers: the values are secrets that never leave the server. */
  config: { target: string | null; header_names: string[] };
  attachments: string[];
}

export const showIntegrations: Section = (main) => {
  const list = h('div');
  const refresh = async () => {
    try {
      const integrations = await run<Integration[]>('integrations list');
      fill(
        list,
        table(
          'Your integrations',
          ['Name', 'Type', 'Target', 'Headers', 'Attached to', 'Comment', 'Actions'],
          integrations.map((i) => [
            i.name,
            i.type,
            i.config.target ?? '',
            i.config.header_names.join(', '),
            i.attachments.join(', '),
            i.comment,
            button(
              'Remove',
              () => {
                if (confirm(`Remove integration ${i.name}?`)) {
                  void act(`integrations remove ${q(i.name)}`, 'Integration removed', refresh);
                }
              },
              `Remove integration ${i.name}`,
            ),
          ]),
        ),
        h(
          'p',
          {},
          'Add one with ',
          h('code', {}, 'integrations add'),
          ' (see help integrations add).',
        ),
      );
    } catch (err) {
      showFailure(list, err);
    }
  };
  fill(main, h('h2', {}, 'Integrations'), list);
  void refresh();
};
