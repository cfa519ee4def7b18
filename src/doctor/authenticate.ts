import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createRuntime } from '../runtime.js';
import type { AuthResult } from './network-checks.js';

/**
 * One request through the same client the tools use: proxy, CA, retries and error texts included.
 * doctor's key check, and setup's before it writes anything.
 */
export async function authenticate(config: Config, log: Logger): Promise<AuthResult> {
  const runtime = await createRuntime(config, log);
  try {
    const page = await runtime.api.listChanges({ limit: 1 });
    return { changes: page.items.length, rateLimit: runtime.api.rateLimit };
  } finally {
    await runtime.close();
  }
}
