/** What a failed request's error says happened on the socket, as undici and Node report it. */

/** Follows an error's `cause` chain (and AggregateError's first member) to the first `code`. */
export function errorCode(error: unknown): { code: string; detail: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    // undici reports an unasked-for 101 only in the message of a socket error.
    if (code === 'UND_ERR_SOCKET' && /bad upgrade/i.test(current.message)) {
      return {
        code: 'HPE_UNEXPECTED_UPGRADE',
        detail: 'HTTP 101 Switching Protocols, which was not asked for',
      };
    }
    if (typeof code === 'string' && code) return { code, detail: current.message };
    // undici's parser errors do not always carry llhttp's code; their class says what they are.
    if (current.name === 'HTTPParserError') return { code: 'HPE_INVALID', detail: current.message };
    const next: unknown =
      current instanceof AggregateError && current.errors.length ? current.errors[0] : current.cause;
    if (next === undefined) break;
    current = next;
  }
  const detail = current instanceof Error ? current.message : String(current);
  return { code: 'FETCH_FAILED', detail };
}
