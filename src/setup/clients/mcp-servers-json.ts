/**
 * The JSON (with comments) shape most clients share: `{ "<top key>": { "model-feed": { command,
 * args, env } } }`. `mcpServers` for Claude Desktop, Claude Code's ~/.claude.json, Cursor,
 * Windsurf and Gemini CLI; `context_servers` for Zed.
 */

import type { FileFormat, ServerEntry } from '../entry.js';
import { envToDrop, SERVER_NAME } from '../entry.js';
import { detectStyle, removeValue, setValue, valueAt } from '../jsonc-edit.js';

type Lib = Parameters<FileFormat['add']>[2];

/** Keys of an entry that reaches a server over HTTP (the hosted endpoint, `--http`), not stdio. */
const REMOTE_KEYS = ['url', 'serverUrl', 'httpUrl', 'headers'];

/** An entry for another transport: merged with ours it would be both, and keep its own key. */
function isRemoteEntry(existing: Record<string, unknown>): boolean {
  const type = existing.type;
  return REMOTE_KEYS.some((key) => key in existing) || (typeof type === 'string' && type !== 'stdio');
}

/**
 * Sets our entry under `top`. A new entry is written whole, and so is one that pointed at an HTTP
 * endpoint (its URL and its Authorization header, holding a key, go). An existing stdio entry keeps
 * its other keys (a `disabled` flag, an extra env var the user added) and gets our command, args and
 * env values; the variables setup manages that `entry` lacks (the key and base URL, for the public
 * origins) are taken out.
 */
export function mergeEntry(
  lib: Lib,
  text: string,
  top: string,
  entry: Pick<ServerEntry, 'env'> & Record<string, unknown>,
): string {
  const style = detectStyle(text);
  const path = [top, SERVER_NAME];
  const existing = valueAt(lib, text, path);
  if (
    existing === undefined ||
    existing === null ||
    typeof existing !== 'object' ||
    Array.isArray(existing) ||
    isRemoteEntry(existing as Record<string, unknown>)
  ) {
    return setValue(lib, text, path, entry, style);
  }
  const edits: [string[], unknown][] = Object.entries(entry).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value).map(([inner, innerValue]): [string[], unknown] => [
          [...path, key, inner],
          innerValue,
        ])
      : [[[...path, key], value]],
  );
  // Every path is looked up in the file as it is first, so a duplicate key is refused with the
  // line numbers the user sees, before any edit has moved them.
  const drops = envToDrop(entry).map((name) => [...path, 'env', name]);
  for (const at of [...edits.map(([at]) => at), ...drops]) valueAt(lib, text, at);
  let merged = text;
  for (const [at, value] of edits) merged = setValue(lib, merged, at, value, style);
  for (const at of drops) merged = removeValue(lib, merged, at);
  return merged;
}

export function mcpServersJson(top: 'mcpServers' | 'context_servers'): FileFormat {
  return {
    add: (text: string, entry: ServerEntry, lib: Lib) => mergeEntry(lib, text, top, { ...entry }),
    remove: (text: string, lib: Lib) => removeValue(lib, text, [top, SERVER_NAME]),
  };
}
