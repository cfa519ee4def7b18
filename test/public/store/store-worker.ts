/**
 * A process that appends to a store under its fetch lock, as a refresh of another process would:
 * `<folder> <name> <count> <republish>`, count 0 for ever (until killed). Each commit is the n-th
 * of the store (n: its polls so far + 1), so what a store holds can be checked from its head alone.
 * Bundled and run by file-store-processes.test.ts; tells its parent once the first commit is in.
 */

import { openFileStore } from '../../../src/public/store/file-store.js';
import { nthCommit, type TestState } from './commits.js';

const [folder = '', name = 'w', countText = '0', republish = 'false'] = process.argv.slice(2);
const store = openFileStore<TestState>(folder, { lockWaitMs: 60_000 });
const count = Number(countText);
for (let done = 0; count === 0 || done < count; done++) {
  await store.withFetchLock(async () => {
    const head = await store.readHead();
    await store.append(nthCommit(name, (head?.polls ?? 0) + 1, republish === 'true'));
  });
  if (done === 0) process.send?.('appending');
}
