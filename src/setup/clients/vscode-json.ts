/**
 * VS Code's mcp.json: servers under `servers`, each with `"type": "stdio"`. The key is not written:
 * a `promptString` input with `password: true` makes VS Code ask for it on first start and keep it
 * in its secret storage, and the entry refers to it as `${input:model-feed-api-key}`.
 */

import { ENV } from '../../config.js';
import type { FileFormat, ServerEntry } from '../entry.js';
import { SERVER_NAME } from '../entry.js';
import { appendElement, detectStyle, removeElements, removeValue, valueAt } from '../jsonc-edit.js';
import { mergeEntry } from './mcp-servers-json.js';

export const VSCODE_INPUT_ID = 'model-feed-api-key';

const INPUT = {
  type: 'promptString',
  id: VSCODE_INPUT_ID,
  description: "Model Change Feed API key (from the service's account screen)",
  password: true,
};

const isOurInput = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && (value as { id?: unknown }).id === VSCODE_INPUT_ID;

export const vscodeJson: FileFormat = {
  add(text: string, entry: ServerEntry, lib) {
    const env = { ...entry.env, [ENV.apiKey]: `\${input:${VSCODE_INPUT_ID}}` };
    // Read before the entry is merged: a duplicate "inputs" is then named by the file's own lines.
    const inputs = valueAt(lib, text, ['inputs']);
    let merged = mergeEntry(lib, text, 'servers', { type: 'stdio', ...entry, env });
    if (!(Array.isArray(inputs) && inputs.some(isOurInput))) {
      merged = appendElement(lib, merged, ['inputs'], INPUT, detectStyle(merged));
    }
    return merged;
  },
  remove(text: string, lib) {
    // A duplicate "inputs" is refused before anything is taken out.
    valueAt(lib, text, ['inputs']);
    const without = removeValue(lib, text, ['servers', SERVER_NAME]);
    // The input stays while another entry of the user's still refers to it.
    if (without.includes(`input:${VSCODE_INPUT_ID}}`)) return without;
    return removeElements(lib, without, ['inputs'], isOurInput);
  },
};
