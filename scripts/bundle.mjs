// npm run bundle: the MCP Bundle (.mcpb) of the built server, for one-click install in Claude
// Desktop and other MCPB hosts. A .mcpb is a zip with manifest.json at its root; this one carries
// manifest.json, bin/, dist/ (without per-machine code caches), package.json, LICENSE and README.md.
// The build has no runtime dependencies, so there is no node_modules/ to pack.
//
// Written with a small zip writer of our own (deflate from node:zlib, CRC-32 below): no tool to
// download, the same bytes on every machine (fixed timestamps, sorted entries).
//
//   node scripts/bundle.mjs [--out FILE]

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = values.out ?? join(root, `${pkg.name}-${pkg.version}.mcpb`);
if (!existsSync(join(root, 'dist/index.cjs'))) throw new Error('dist/ is missing: run `npm run build` first');

/** Files of the bundle: what the manifest's entry point needs, nothing per-machine. */
function files() {
  const walk = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  const bundle = [...walk('bin'), ...walk('dist')].filter(
    // Type declarations are for libraries.
    (file) => !file.endsWith('.d.cts') && !file.includes('.tmp'),
  );
  return ['manifest.json', 'package.json', 'LICENSE', 'README.md', ...bundle]
    .map((file) => file.split(sep).join('/'))
    .sort();
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let crc = 0xffffffff;
  for (const byte of buffer) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// 1980-01-01 00:00, the zip epoch: the same archive for the same files.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

function zip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data, mode } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const compressed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, nameBytes, compressed);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, so the mode below counts
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(((0o100000 | mode) << 16) >>> 0, 38); // regular file, its permissions
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const entries = files().map((name) => ({
  name,
  data: readFileSync(join(root, name)),
  mode: name.startsWith('bin/') ? 0o755 : 0o644,
}));
const archive = zip(entries);
writeFileSync(out, archive);
const size = statSync(out).size;
console.log(
  `${relative(process.cwd(), out) || out}: ${entries.length} files, ${(size / 1024).toFixed(0)} KB. ` +
    'Open it with Claude Desktop (Settings → Extensions), or another MCPB host, to install.',
);
