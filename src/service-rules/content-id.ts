import { createHash } from 'node:crypto';

// A run uses one or two namespaces; live mode hashes 10,000 names into one in a burst.
const namespaces = new Map<string, Buffer>();

function namespaceBytesOf(namespace: string): Buffer {
  let bytes = namespaces.get(namespace);
  if (bytes === undefined) {
    bytes = Buffer.from(namespace.replaceAll('-', ''), 'hex');
    if (bytes.length !== 16) throw new Error(`not a UUID: ${namespace}`);
    namespaces.set(namespace, bytes);
  }
  return bytes;
}

/**
 * Name-based UUID, version 5 (RFC 9562 §5.5): the same name in the same namespace always gives the
 * same id, so event ids are stable across runs and machines without being stored in the data.
 */
export function uuidV5(name: string, namespace: string): string {
  const namespaceBytes = namespaceBytesOf(namespace);
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
