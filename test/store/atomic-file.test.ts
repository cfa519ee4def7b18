import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FILE_MODE, modeToKeep, writeFileAtomic } from '../../src/store/atomic-file.js';
import { tempFolder } from '../support/temp.js';

const umask = process.umask();
afterEach(() => {
  process.umask(umask);
});

describe('writeFileAtomic', () => {
  it('gives the file exactly the mode asked for, whatever the umask, 0600 included', async () => {
    const folder = tempFolder('mf-atomic-');
    process.umask(0o277);
    await writeFileAtomic(join(folder, 'secret.json'), '{}');
    expect(statSync(join(folder, 'secret.json')).mode & 0o777).toBe(FILE_MODE);
    await writeFileAtomic(join(folder, 'shared.xml'), '<x/>', { mode: 0o644 });
    expect(statSync(join(folder, 'shared.xml')).mode & 0o777).toBe(0o644);
  });
});

describe('modeToKeep', () => {
  it("is an existing file's mode, or what the umask leaves of 0666 for a new one", async () => {
    const folder = tempFolder('mf-atomic-');
    writeFileSync(join(folder, 'a'), '');
    process.umask(0);
    const { chmodSync } = await import('node:fs');
    chmodSync(join(folder, 'a'), 0o640);
    expect(await modeToKeep(join(folder, 'a'))).toBe(0o640);
    process.umask(0o027);
    expect(await modeToKeep(join(folder, 'new'))).toBe(0o640);
    process.umask(0o022);
    expect(await modeToKeep(join(folder, 'new'))).toBe(0o644);
  });
});
