/**
 * The MCP protocol revisions this server speaks, and the one check of a request's revision that
 * the SDK leaves to us: `serveStdio` checks the revision of a connection's opening request only, so
 * a later request naming a revision we do not serve would be answered as if it named ours.
 */

import {
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';

/**
 * Revisions a request's `_meta` envelope may name: the stateless ones the SDK serves. The SDK keeps
 * its list internal; a test holds this one to what its `serveStdio` answers an unknown revision.
 */
export const ENVELOPED_REVISIONS: readonly string[] = ['2026-07-28'];

/** The revision a request's envelope names, if it has one. */
function envelopeRevision(message: JSONRPCMessage): unknown {
  if (!('method' in message)) return undefined;
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
}

/**
 * The -32022 answer to a request whose envelope names a revision this server does not serve, with
 * the revisions it does serve; undefined for every other message.
 */
export function revisionRefusal(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if (!('id' in message) || !('method' in message)) return undefined;
  const requested = envelopeRevision(message);
  if (requested === undefined || (typeof requested === 'string' && ENVELOPED_REVISIONS.includes(requested))) {
    return undefined;
  }
  const error = new UnsupportedProtocolVersionError({
    supported: [...ENVELOPED_REVISIONS],
    // Anything but a string is named as the SDK names it: String() of a hostile object can throw.
    requested: typeof requested === 'string' ? requested : 'unknown',
  });
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined && { data: error.data }),
    },
  };
}
