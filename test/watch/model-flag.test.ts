import { describe, expect, it } from 'vitest';
import { parseWatchFlags } from '../../src/watch/options.js';

const context = { cwd: '/work', env: {}, secrets: [] };

describe('watch --model takes a vendor slug, not a model id', () => {
  it('refuses a model id, naming the vendor slug meant and get_model', () => {
    expect(() => parseWatchFlags({ model: 'openai/gpt-4o' }, context)).toThrow(
      '--model takes a vendor slug (here openai), not a model id; got "openai/gpt-4o". Use --model openai; call get_model gives one model.',
    );
  });

  it('forwards a vendor slug as before', () => {
    expect(parseWatchFlags({ model: ' meta-llama ' }, context).filters.model).toBe('meta-llama');
  });
});
