// Writing the client's config file (`$XDG_CONFIG_HOME/exectl/config.json`) for `exectl profile`:
// all at once or not at all, readable by its owner only. It may hold a token, and a reader must
// never meet half a file.
import { writeWholeFile } from '../../write-whole-file.js';

/**
 * Replaces the file at `path` with `document` as indented JSON, mode 0600 whatever the umask
 * (see writeWholeFile: a symbolic link keeps being one).
 */
export async function writeConfigFile(path: string, document: object): Promise<void> {
  await writeWholeFile(path, `${JSON.stringify(document, null, 2)}\n`, 'the config file');
}
