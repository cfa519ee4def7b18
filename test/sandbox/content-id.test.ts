import { describe, expect, it } from 'vitest';
import { uuidV5 } from '../../src/service-rules/content-id.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('matches the reference implementation (Python uuid.uuid5)', () => {
    expect(uuidV5('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidV5('https://openrouter.ai/', URL_NAMESPACE)).toBe('980dbb5b-e120-57cc-a0ea-69001166f171');
  });

  it('rejects a namespace that is not a UUID', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(/not a UUID/);
  });
});
