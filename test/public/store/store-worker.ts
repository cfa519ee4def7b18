/**
 * A process that appends to a store under its fetch lock, as a refresh of another process would:
 * `<folder> <name> <count> <republish> <pauseMs>`: count 0 for ever (until killed), a pause of
 * up to pauseMs between commits. Each commit is the n-th
 * of the store (n: its polls so far + 1), so what a store holds can be checked from its head alone.
 * Bundled and run by file-store-processes.test.ts: says `ready`, starts when told, and says
 * `appending` once its first commit is in.
 */

import { openFileStore } from '../../../src/public/store/file-store.js';
import { nthCommit, type TestState } from './commits.js';

const [folder = '', name = 'w', countText = '0', republish = 'false', pauseMs = '0'] = process.argv.slice(2);
const store = openFileStore<TestState>(folder, { lockWaitMs: 60_000 });
const count = Number(countText);
await new Promise<void>((go) => {
  process.once('message', () => go());
  process.send?.('ready');
});
for (let done = 0; count === 0 || done < count; done++) {
  await store.withFetchLock(async () => {
    const head = await store.readHead();
    await store.append(nthCommit(name, (head?.polls ?? 0) + 1, republish === 'true'));
  });
  if (done === 0) process.send?.('appending');
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Number(pauseMs)));
}
