/**
 * The MCP protocol revisions this server speaks, and the one check of a request's revision that
 * the SDK leaves to us: `serveStdio` checks the revision of a connection's opening request only, so
 * a later request naming a revision we do not serve would be answered as if it named ours.
 */

import {
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';

/**
 * Revisions a request's `_meta` envelope may name: the stateless ones the SDK serves. The SDK keeps
 * its list internal; a test holds this one to what its `server/discover` answers.
 */
export const ENVELOPED_REVISIONS: readonly string[] = ['2026-07-28'];

/**
 * Every revision this server speaks, newest first: the enveloped ones, then the 2025 ones that
 * `initialize` negotiates (the SDK's list). A client refused one of them learns from this list that
 * it can fall back to `initialize`, as the -32022 answer's `data.supported` is meant for.
 */
export const SERVED_REVISIONS: readonly string[] = [...ENVELOPED_REVISIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/** The -32022 text: which revisions go in the envelope, and which after `initialize`. */
const UNSUPPORTED_TEXT =
  `Unsupported protocol version: this server speaks ${ENVELOPED_REVISIONS.join(', ')} in the per-request _meta envelope, ` +
  `and ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} after initialize (without the envelope).`;

/** The revision a request's envelope names, if it has one. */
export function envelopeRevision(message: JSONRPCMessage): unknown {
  if (!('method' in message)) return undefined;
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
}

/**
 * The -32022 answer to a request whose envelope names a revision this server does not serve, with
 * every revision it does serve (an envelope naming a 2025 one included: those are spoken after
 * `initialize`); undefined for every other message. Over stdio and `--http` alike, so the SDK's own
 * answer (which lists the enveloped revisions only) is never the one sent.
 */
export function revisionRefusal(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if (!('id' in message) || !('method' in message)) return undefined;
  const requested = envelopeRevision(message);
  if (requested === undefined || (typeof requested === 'string' && ENVELOPED_REVISIONS.includes(requested))) {
    return undefined;
  }
  const error = new UnsupportedProtocolVersionError({
    supported: [...SERVED_REVISIONS],
    // Anything but a string is named as the SDK names it: String() of a hostile object can throw.
    requested: typeof requested === 'string' ? requested : 'unknown',
  });
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: error.code,
      message: UNSUPPORTED_TEXT,
      ...(error.data !== undefined && { data: error.data }),
    },
  };
}
