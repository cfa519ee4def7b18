/**
 * VS Code's mcp.json: servers under `servers`, each with `"type": "stdio"`. The key is not written:
 * a `promptString` input with `password: true` makes VS Code ask for it on first start and keep it
 * in its secret storage, and the entry refers to it as `${input:model-feed-api-key}`. An entry
 * without a key (the public origins) has no such input: VS Code would ask for a key no one needs.
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
    const keyed = ENV.apiKey in entry.env;
    const env = keyed ? { ...entry.env, [ENV.apiKey]: `\${input:${VSCODE_INPUT_ID}}` } : entry.env;
    // Read before the entry is merged: a duplicate "inputs" is then named by the file's own lines.
    const inputs = valueAt(lib, text, ['inputs']);
    const merged = mergeEntry(lib, text, 'servers', { type: 'stdio', ...entry, env });
    const hasInput = Array.isArray(inputs) && inputs.some(isOurInput);
    if (keyed && !hasInput) return appendElement(lib, merged, ['inputs'], INPUT, detectStyle(merged));
    if (keyed || !hasInput || referred(merged)) return merged;
    return removeElements(lib, merged, ['inputs'], isOurInput);
  },
  remove(text: string, lib) {
    // A duplicate "inputs" is refused before anything is taken out.
    valueAt(lib, text, ['inputs']);
    const without = removeValue(lib, text, ['servers', SERVER_NAME]);
    if (referred(without)) return without;
    return removeElements(lib, without, ['inputs'], isOurInput);
  },
};

/** The input stays while an entry (another of the user's, or ours) still refers to it. */
function referred(text: string): boolean {
  return text.includes(`input:${VSCODE_INPUT_ID}}`);
}
