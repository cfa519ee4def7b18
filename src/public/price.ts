/**
 * The aggregator quotes prices as decimal strings in USD per token; the service speaks USD per 1M
 * tokens. Converting through a float leaves noise (`"0.0000025"` × 1e6 is 2.4999999999999996), and
 * the catalog itself sometimes carries noise (`"0.00000020000000000000002"`), which would make an
 * unchanged price look changed. Rounding to a billionth of a dollar per 1M tokens (far below any
 * real price step) gives one canonical number for both.
 */

const STEPS_PER_DOLLAR = 1e9;

/**
 * USD per 1M tokens from a per-token decimal string, or null when there is no fixed price: a
 * negative value (`"-1"` is how routers such as `openrouter/auto` say "variable"), a value that
 * is not a finite number, or no value at all.
 */
export function perMillion(perToken: unknown): number | null {
  if (typeof perToken !== 'string' && typeof perToken !== 'number') return null;
  const value =
    typeof perToken === 'number' ? perToken : perToken.trim() === '' ? Number.NaN : Number(perToken);
  if (!Number.isFinite(value) || value < 0) return null;
  return Math.round(value * 1e6 * STEPS_PER_DOLLAR) / STEPS_PER_DOLLAR;
}
