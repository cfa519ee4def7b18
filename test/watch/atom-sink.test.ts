/** The atom sink: a feed a real XML parser accepts, bounded, deduplicated, and read back after a restart. */

import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiSchemas } from '../../src/api/schemas.js';
import type { MarkedDelivery } from '../../src/watch/news.js';
import {
  ATOM_MAX_ENTRIES,
  type AtomSinkOptions,
  atomEntryId,
  createAtomSink,
} from '../../src/watch/sinks/atom.js';
import type { Sink } from '../../src/watch/sinks/sink.js';
import { changeEvent } from '../fixtures.js';
import { newDelivery } from './marked.js';

const { ChangeEvent: ChangeEventSchema } = apiSchemas();

const T0 = Date.parse('2024-08-07T00:00:00Z');

function delivery(overrides: Record<string, unknown> = {}, at = new Date(T0)): MarkedDelivery {
  const data = changeEvent(overrides);
  return newDelivery(data, ChangeEventSchema.parse(data), at);
}

const eventId = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Node {
  '#text'?: string;
  [key: string]: unknown;
}
interface Entry {
  id: string;
  title: Node;
  updated: string;
  published?: string;
  summary?: Node;
  content: Node;
  link?: Node[];
  category: Node[];
  author: { name: string };
}
interface Feed {
  '@_xmlns': string;
  id: string;
  title: Node;
  updated: string;
  generator: Node;
  link?: Node[];
  entry?: Entry[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  trimValues: false,
  isArray: (name) => ['entry', 'category', 'link'].includes(name),
});

const text = (node: Node | string | undefined): string =>
  typeof node === 'string' ? node : (node?.['#text'] ?? '');

/** Well-formed by a real parser's validator, plus what that validator lets through. */
function expectWellFormedXml(xml: string): void {
  expect(XMLValidator.validate(xml)).toBe(true);
  // Characters outside XML 1.0's Char production (C0 but tab/LF/CR, U+FFFE/FFFF, lone surrogates).
  expect(xml).not.toMatch(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
  // Every & starts a predefined entity or a character reference; no raw CDATA end.
  expect(xml).not.toMatch(/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/);
  expect(xml).not.toContain(']]>');
}

let dir: string;
let path: string;
let warnings: string[];
const sinks: Sink[] = [];
const never = new AbortController().signal;

async function atomSink(overrides: Partial<AtomSinkOptions> = {}): Promise<Sink> {
  const sink = await createAtomSink({
    path,
    feedId: 'urn:model-feed:feed:test',
    now: () => new Date(T0 + 3_600_000),
    warn: (message) => warnings.push(message),
    ...overrides,
  });
  sinks.push(sink);
  return sink;
}

async function readFeed(): Promise<{ xml: string; feed: Feed; entries: Entry[] }> {
  const xml = await readFile(path, 'utf8');
  expectWellFormedXml(xml);
  const feed = (parser.parse(xml) as { feed: Feed }).feed;
  return { xml, feed, entries: feed.entry ?? [] };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'model-feed-atom-'));
  path = join(dir, 'feeds', 'changes.atom');
  warnings = [];
});

afterEach(async () => {
  await Promise.all(sinks.splice(0).map((sink) => sink.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('atom sink', () => {
  it('writes an Atom 1.0 feed whose entry carries the change', async () => {
    const sink = await atomSink({ title: 'GPT changes' });
    await sink.deliver(delivery({ verificationStatus: 'pending', official: false }), never);
    await sink.flush(never);

    const { feed, entries } = await readFeed();
    expect(feed['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe('urn:model-feed:feed:test');
    expect(text(feed.title)).toBe('GPT changes');
    expect(feed.updated).toBe('2024-08-07T01:00:00.000Z');
    expect(text(feed.generator)).toBe('model-feed-mcp');
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry!.id).toBe('urn:model-feed:event:00000000-0000-4000-8000-000000000001');
    expect(text(entry!.title)).toBe('[new] GPT-4o price cut');
    expect(entry!.updated).toBe('2024-08-07T00:00:00.000Z');
    expect(entry!.published).toBe('2024-08-06T00:00:00.000Z');
    expect(text(entry!.summary)).toBe('Input price halved.');
    const content = text(entry!.content);
    expect(entry!.content['@_type']).toBe('text');
    expect(content).toContain('Change: in $5 / out $15 per 1M tokens → in $2.5 / out $10 per 1M tokens');
    expect(content).toContain('Verification: pending');
    expect(content).toContain('Model: GPT-4o (openai)');
    expect(entry!.link).toEqual([
      { '@_rel': 'alternate', '@_type': 'text/html', '@_href': 'https://openrouter.ai/openai/gpt-4o' },
    ]);
    expect(entry!.category.map((c) => c['@_term'])).toEqual(['price_change', 'pending', 'new']);
    expect(entry!.author.name).toBe('OpenRouter');
    expect(sink.label).toBe(`atom ${path}`);
    expect(feed.link).toBeUndefined();
  });

  it('leaves out a link that is not http(s) and a publication date that is not a date', async () => {
    const sink = await atomSink();
    await sink.deliver(
      delivery({
        sourceUrl: 'javascript:alert(1)',
        detectedAt: 'yesterday',
        sourceName: null,
        summary: null,
      }),
      never,
    );
    await sink.flush(never);

    const [entry] = (await readFeed()).entries;
    expect(entry!.link).toBeUndefined();
    expect(entry!.published).toBeUndefined();
    expect(entry!.summary).toBeUndefined();
    expect(entry!.author.name).toBe('Model Change Feed');
  });

  it('keeps the 100 newest of 150 changes, newest first, with unique entry ids', async () => {
    const sink = await atomSink();
    for (let n = 1; n <= 150; n += 1) {
      await sink.deliver(delivery({ id: eventId(n), title: `change ${n}` }, new Date(T0 + n * 1000)), never);
    }
    await sink.flush(never);

    const { entries } = await readFeed();
    expect(entries).toHaveLength(ATOM_MAX_ENTRIES);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(ATOM_MAX_ENTRIES);
    expect(text(entries[0]!.title)).toBe('[new] change 150');
    expect(text(entries[99]!.title)).toBe('[new] change 51');
  });

  it('replaces the entry of a redelivered or updated event, and moves it to the top', async () => {
    const sink = await atomSink();
    await sink.deliver(delivery({ id: eventId(1), verificationStatus: 'pending', official: false }), never);
    await sink.deliver(delivery({ id: eventId(2), title: 'another change' }), never);
    await sink.deliver(delivery({ id: eventId(2), title: 'another change' }), never);
    await sink.deliver(
      delivery({ id: eventId(1), verificationStatus: 'official' }, new Date(T0 + 60_000)),
      never,
    );
    await sink.flush(never);

    const { entries } = await readFeed();
    expect(entries.map((entry) => entry.id)).toEqual([atomEntryId(eventId(1)), atomEntryId(eventId(2))]);
    expect(text(entries[0]!.content)).toContain('Verification: official');
    expect(entries[0]!.updated).toBe('2024-08-07T00:01:00.000Z');
  });

  it('gives distinct event ids distinct entry ids, and the same one to ids XML cannot hold apart', () => {
    const ids = ['a b', 'a%20b', 'a/b', 'a:b', 'é', 'a'].map(atomEntryId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(atomEntryId('a b')).toBe('urn:model-feed:event:a%20b');
    expect(atomEntryId('x\ud800')).toBe(atomEntryId('x\ufffd'));
  });

  it('reads its entries back in a new run, and rewrites the file only when something changed', async () => {
    const first = await atomSink();
    for (let n = 1; n <= 3; n += 1) {
      await first.deliver(delivery({ id: eventId(n), title: `change ${n}` }, new Date(T0 + n * 1000)), never);
    }
    await first.flush(never);
    await first.close();
    const before = await readFile(path, 'utf8');

    let clockReads = 0;
    const second = await atomSink({
      now: () => {
        clockReads += 1;
        return new Date(T0 + 7_200_000);
      },
    });
    await second.flush(never);
    expect(clockReads).toBe(0);
    expect(await readFile(path, 'utf8')).toBe(before);

    await second.deliver(delivery({ id: eventId(4), title: 'change 4' }), never);
    await second.flush(never);
    await second.flush(never);
    expect(clockReads).toBe(1);

    const { entries } = await readFeed();
    expect(entries.map((entry) => text(entry.title))).toEqual([
      '[new] change 4',
      '[new] change 3',
      '[new] change 2',
      '[new] change 1',
    ]);
    expect(warnings).toEqual([]);
  });

  it('starts from a missing file without a warning, and writes an empty feed on flush', async () => {
    const sink = await atomSink();
    await sink.flush(never);
    const { feed, entries } = await readFeed();
    expect(feed.id).toBe('urn:model-feed:feed:test');
    expect(entries).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it.each([
    ['garbage', '\u0000\u0001 not xml at all <<<'],
    ['an empty file', ''],
    [
      "someone else's feed",
      '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><id>x</id><entry><id>y</id></entry></feed>',
    ],
  ])('warns about %s, starts empty and replaces it with a valid feed', async (_name, existing) => {
    await mkdir(join(dir, 'feeds'));
    await writeFile(path, existing);

    const sink = await atomSink();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(path);
    await sink.flush(never);
    expect((await readFeed()).entries).toEqual([]);

    await sink.deliver(delivery(), never);
    await sink.flush(never);
    expect((await readFeed()).entries).toHaveLength(1);
  });

  it('drops damaged entries of its own file with a warning, and keeps the rest', async () => {
    const first = await atomSink();
    await first.deliver(delivery({ id: eventId(1), title: 'kept' }), never);
    await first.deliver(delivery({ id: eventId(2), title: 'damaged' }), never);
    await first.flush(never);
    const xml = await readFile(path, 'utf8');
    const envelopes = [...xml.matchAll(/<mf:envelope>([^<]*)<\/mf:envelope>/g)].map((m) => m[1]!);
    expect(envelopes).toHaveLength(2);
    const notAnEvent = Buffer.from(JSON.stringify({ type: 'model_feed.change', data: { id: 1 } })).toString(
      'base64',
    );
    await writeFile(path, xml.replace(envelopes[0]!, notAnEvent));

    const second = await atomSink();
    expect(warnings).toEqual([
      `atom feed ${path}: 1 of its entries could not be read back; it will be rewritten`,
    ]);
    await second.flush(never);
    const { entries } = await readFeed();
    expect(entries.map((entry) => text(entry.title))).toEqual(['[new] kept']);
  });

  it('warns when the file cannot be read, and fails the flush that cannot replace it', async () => {
    await mkdir(path, { recursive: true });
    const sink = await atomSink();
    expect(warnings).toHaveLength(1);
    await sink.deliver(delivery(), never);
    await expect(sink.flush(never)).rejects.toThrow();
  });

  it('writes valid XML from hostile text, and reads the exact values back', async () => {
    const c0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
    const hostile = `<b>&amp; ]]> ${c0} \uffff \ufffe \ud800 \udfff \u001b[2J\u001b]8;;https://evil.test\u0007link\u001b]8;;\u0007 \u202eevil &#0; "'`;
    const data = {
      id: `evt-${hostile}`,
      eventType: hostile,
      title: hostile,
      summary: hostile,
      beforeValue: hostile,
      afterValue: hostile,
      sourceName: hostile,
      sourceUrl: `https://example.test/?q=<x>&y="z"`,
      verificationStatus: hostile,
      model: { slug: hostile, name: hostile },
    };
    const sink = await atomSink({ title: hostile, feedId: `urn:x:${hostile}` });
    await sink.deliver(delivery(data), never);
    await sink.flush(never);

    const { xml, feed, entries } = await readFeed();
    // The feed id is the caller's, kept as given (but for what XML forbids); what the service sent is
    // also cleaned of escape sequences and bidi overrides.
    const serviceText = xml.replace(/<id>urn:x:.*?<\/id>/s, '');
    expect(serviceText).not.toContain('\u001b');
    expect(serviceText).not.toContain('\u202e');
    expect(feed.id).toMatch(/^urn:x:<b>&amp; ]]> \t\n/);
    expect(text(feed.title)).toContain('<b>&amp; ]]>');
    const [entry] = entries;
    expect(text(entry!.title)).toMatch(/^\[new\] <b>&amp; \]\]> /);
    expect(text(entry!.title)).not.toContain('evil.test');
    expect(entry!.link![0]!['@_href']).toBe('https://example.test/?q=%3Cx%3E&y=%22z%22');
    expect(entry!.id).toMatch(/^urn:model-feed:event:evt-%3Cb%3E/);

    const reloaded = await atomSink();
    await reloaded.deliver(delivery({ id: eventId(9) }), never);
    await reloaded.flush(never);
    const after = await readFeed();
    expect(after.entries).toHaveLength(2);
    expect(after.entries[1]!.id).toBe(entry!.id);
    expect(warnings).toEqual([]);
    // The envelope, kept in the entry, holds the service's values exactly, lone surrogates included.
    const stored = [...after.xml.matchAll(/<mf:envelope>([^<]*)<\/mf:envelope>/g)].map(
      (m) => JSON.parse(Buffer.from(m[1]!, 'base64').toString('utf8')) as { data: Record<string, unknown> },
    );
    expect(stored[1]!.data).toEqual(changeEvent(data));
  });

  it('bounds what an entry shows of a huge value', async () => {
    const sink = await atomSink();
    await sink.deliver(delivery({ title: 't'.repeat(100_000), summary: 's'.repeat(1_000_000) }), never);
    await sink.flush(never);
    const { xml, entries } = await readFeed();
    expect(text(entries[0]!.title).length).toBeLessThanOrEqual(300);
    expect(text(entries[0]!.summary).length).toBeLessThanOrEqual(4000);
    // Too large to keep its envelope: the entry is shown, but not read back after a restart.
    expect(xml).not.toContain('<mf:envelope>');
    expect(xml.length).toBeLessThan(20_000);
  });

  it('does not write when the signal has aborted, and then writes on the next flush', async () => {
    const sink = await atomSink();
    await sink.deliver(delivery(), never);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(sink.flush(controller.signal)).rejects.toBe(reason);
    await expect(stat(path)).rejects.toThrow();
    await sink.flush(never);
    expect((await readFeed()).entries).toHaveLength(1);
  });
});

/** The mode bits of a file, or of a link's target. */
const modeOf = async (file: string): Promise<number> => (await stat(file)).mode & 0o777;

/** Runs `body` with the process umask set to `mask`, and puts the old one back. */
async function withUmask<T>(mask: number, body: () => Promise<T>): Promise<T> {
  const old = process.umask(mask);
  try {
    return await body();
  } finally {
    process.umask(old);
  }
}

// A feed is meant to be served and holds no secret: its file is not made user-only, and a link to
// it (a web server's folder, say) stays a link.
describe.skipIf(process.platform === 'win32')('atom sink: the file it writes', () => {
  it("gives a new file the umask's default mode, and keeps an existing file's mode", async () => {
    const sink = await atomSink();
    await withUmask(0o027, async () => {
      await sink.deliver(delivery({ id: eventId(1) }), never);
      await sink.flush(never);
    });
    expect((await modeOf(path)).toString(8)).toBe('640');

    for (const mode of [0o644, 0o600, 0o664]) {
      await chmod(path, mode);
      await withUmask(0o077, async () => {
        await sink.deliver(delivery({ id: eventId(mode) }), never);
        await sink.flush(never);
      });
      expect((await modeOf(path)).toString(8)).toBe(mode.toString(8));
    }
  });

  it('writes through a symlink to its target, atomically beside the target; the link stays a link', async () => {
    const served = join(dir, 'www');
    const target = join(served, 'changes.atom');
    await mkdir(served);
    await writeFile(target, '');
    await chmod(target, 0o644);
    await mkdir(join(dir, 'feeds'));
    // A relative link to a relative link: each is resolved from its own folder.
    await symlink('../www/changes.atom', join(dir, 'feeds', 'hop.atom'));
    await symlink('hop.atom', path);

    const sink = await atomSink();
    await sink.deliver(delivery(), never);
    await sink.flush(never);

    expect((await lstat(path)).isSymbolicLink()).toBe(true);
    expect((await lstat(join(dir, 'feeds', 'hop.atom'))).isSymbolicLink()).toBe(true);
    expect((await lstat(target)).isFile()).toBe(true);
    expect((await readFeed()).entries).toHaveLength(1);
    expect(await readFile(target, 'utf8')).toBe(await readFile(path, 'utf8'));
    expect((await modeOf(target)).toString(8)).toBe('644');
    // No temp file left behind, in the target's folder or the link's.
    expect((await readdir(served)).sort()).toEqual(['changes.atom']);
    expect((await readdir(join(dir, 'feeds'))).sort()).toEqual(['changes.atom', 'hop.atom']);
  });

  it('creates the target of a dangling link, and stops on a loop of links with ELOOP', async () => {
    await mkdir(join(dir, 'feeds'));
    await mkdir(join(dir, 'www'));
    await symlink(join(dir, 'www', 'changes.atom'), path);
    const sink = await atomSink();
    await withUmask(0o022, async () => {
      await sink.deliver(delivery(), never);
      await sink.flush(never);
    });
    expect((await lstat(path)).isSymbolicLink()).toBe(true);
    expect((await modeOf(join(dir, 'www', 'changes.atom'))).toString(8)).toBe('644');
    expect((await readFeed()).entries).toHaveLength(1);

    const loop = join(dir, 'feeds', 'loop.atom');
    await symlink('loop.atom', loop);
    // A feed that cannot be read is not replaced: its entries would be lost.
    await expect(atomSink({ path: loop })).rejects.toMatchObject({ code: 'ELOOP' });
    expect((await lstat(loop)).isSymbolicLink()).toBe(true);
  });
});

describe("atom sink: the feed's own address", () => {
  it('links the feed to itself with rel="self" when given its URL, XML-escaped', async () => {
    const sink = await atomSink({ selfUrl: 'https://example.com/feeds/changes.atom?a=1&b=2' });
    await sink.flush(never);
    const { xml, feed } = await readFeed();
    expect(feed.link).toEqual([
      {
        '@_rel': 'self',
        '@_type': 'application/atom+xml',
        '@_href': 'https://example.com/feeds/changes.atom?a=1&b=2',
      },
    ]);
    expect(xml).toContain('href="https://example.com/feeds/changes.atom?a=1&amp;b=2"');
  });
});
