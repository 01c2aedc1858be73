// What every completion script says about how it works (comment lines).
import { CACHE_LIFETIME_MS } from './cache.js';

export const SCRIPT_NOTE = `# Each TAB runs \`exectl __complete WORDS...\`, which answers from exectl's own commands and
# flags and, for \`run\` and \`ssh\`, from the server (\`help all\`, \`ls\`), cached for
# ${CACHE_LIFETIME_MS / 1000} s in $XDG_CACHE_HOME/exectl; when the server is down it answers nothing.`;
