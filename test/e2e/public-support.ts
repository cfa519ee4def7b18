/** The environment of a CLI on `--source public` against the stub origins, for the end-to-end tests. */

import type { StubOrigin } from '../support/stub-origin.js';
import { scrubbedEnv } from './harness.js';

/** The catalog from the stub, the other origins off unless `extra` points them at it too. */
export function publicEnv(origin: StubOrigin, stateHome: string, extra: Record<string, string> = {}) {
  return scrubbedEnv({
    MODEL_FEED_SOURCE: 'public',
    MODEL_FEED_OPENROUTER_URL: origin.url,
    MODEL_FEED_MODELS_DEV_URL: 'off',
    MODEL_FEED_HUGGINGFACE_URL: 'off',
    MODEL_FEED_DEPRECATIONS_URL: 'off',
    XDG_STATE_HOME: stateHome,
    ...extra,
  });
}
