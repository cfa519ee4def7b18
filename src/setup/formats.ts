/**
 * The parsers `setup` needs, in a chunk of their own (dist/setup-formats.cjs, see tsup.config.ts):
 * only `setup` loads it, so the server's start-up neither reads nor compiles them.
 * - jsonc-parser (VS Code's): a JSON-with-comments parse tree with offsets, so an edit can touch
 *   only the bytes it means to.
 * - smol-toml: a TOML parser, to read Codex's config and to prove an edit changed nothing else.
 */

export {
  applyEdits,
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
export { parse as parseToml, TomlError } from 'smol-toml';
