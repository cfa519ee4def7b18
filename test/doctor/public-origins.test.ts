/** The pure parts of `doctor --source public`: the origin lines, what an answer holds, the record. */

import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { check, skipped } from '../../src/doctor/check.js';
import {
  asOptional,
  checkOriginAddress,
  forOrigin,
  getFailed,
  getPassed,
  type OriginToCheck,
} from '../../src/doctor/origin-outcomes.js';
import {
  readCatalog,
  readDeprecations,
  readHuggingFace,
  readModelsDev,
} from '../../src/doctor/origin-readings.js';
import { ageInWords, checkRecord } from '../../src/doctor/record-check.js';
import { exitCodeFor, renderText } from '../../src/doctor/report.js';
import { checkNoAccount, checkPublicSettings } from '../../src/doctor/source-check.js';
import { NetworkError } from '../../src/errors.js';
import { answer, listing, T0 } from '../public/catalog-fixtures.js';
import { modelsDevAnswer } from '../public/origin-fixtures.js';

const CATALOG: OriginToCheck = {
  name: 'openrouter',
  label: 'Catalog',
  setting: 'MODEL_FEED_OPENROUTER_URL',
  url: 'https://openrouter.ai/api/v1',
  adds: undefined,
  path: '/models',
};
const MODELS_DEV: OriginToCheck = {
  name: 'models.dev',
  label: 'models.dev',
  setting: 'MODEL_FEED_MODELS_DEV_URL',
  url: 'https://models.dev',
  adds: 'release dates',
  path: '/api.json',
};

describe('an origin line', () => {
  it('names the address, where it came from and the route, proxy included', () => {
    const line = checkOriginAddress(
      CATALOG,
      {},
      {
        proxy: 'http://proxy.corp:3128',
        reason: 'via http://proxy.corp:3128 (from HTTPS_PROXY)',
      },
    );
    expect(line).toEqual({
      id: 'origin',
      origin: 'openrouter',
      title: 'Catalog',
      status: 'pass',
      detail: 'https://openrouter.ai/api/v1 (default); via http://proxy.corp:3128 (from HTTPS_PROXY)',
    });
    const mirror = checkOriginAddress(
      { ...MODELS_DEV, url: 'https://mirror.corp/models-dev' },
      { MODEL_FEED_MODELS_DEV_URL: 'https://mirror.corp/models-dev' },
      { proxy: undefined, reason: 'direct: NO_PROXY entry ".corp" matches mirror.corp' },
    );
    expect(mirror.detail).toBe(
      'https://mirror.corp/models-dev from MODEL_FEED_MODELS_DEV_URL; direct: NO_PROXY entry ".corp" matches mirror.corp',
    );
  });

  it('an origin turned off is off, which neither fails nor counts as a pass', () => {
    const off = checkOriginAddress({ ...MODELS_DEV, url: undefined }, {}, undefined);
    expect(off).toMatchObject({
      status: 'off',
      detail: expect.stringMatching(/^off \(MODEL_FEED_MODELS_DEV_URL=off\)/),
    });
    const spineOff = checkOriginAddress({ ...CATALOG, url: undefined }, {}, undefined);
    expect(spineOff.detail).toContain('no snapshot is taken');
    expect(exitCodeFor([off])).toBe(0);
    expect(renderText([check('node', { status: 'pass', detail: 'ok' }), off])).toMatch(
      /\n○ models\.dev {2}off .*\nAll 1 checks passed, 1 off\.\n$/,
    );
  });
});

describe('the GET', () => {
  it('reports the status, the size and what the answer holds', () => {
    const got = getPassed(
      CATALOG,
      { status: 200, bytes: 2048, body: {} },
      { ok: true, summary: '2 models listed' },
      5,
    );
    expect(got).toMatchObject({
      id: 'get',
      title: 'Catalog GET',
      status: 'pass',
      detail: 'GET /models: HTTP 200, 2 KB, 2 models listed',
    });
    const unusable = getPassed(
      CATALOG,
      { status: 200, bytes: 10, body: {} },
      { ok: false, reason: 'no list' },
      5,
    );
    expect(unusable).toMatchObject({ status: 'fail', detail: 'GET /models: HTTP 200, 10 B, but no list' });
  });

  it('a failure names the host and what happened, with the fix a tool call would give', () => {
    const error = new NetworkError('ECONNREFUSED', 'connect ECONNREFUSED', {
      method: 'GET',
      path: '/api/v1/models',
      host: 'openrouter.ai',
      attempts: 1,
      proxy: undefined,
    });
    expect(getFailed(CATALOG, error, 3)).toMatchObject({
      status: 'fail',
      detail: 'GET /models: openrouter.ai is unreachable (ECONNREFUSED)',
      fix: expect.any(String),
    });
  });
});

describe('an origin other than the catalog', () => {
  it('fails as a warning saying what the feed goes without, and drops the steps it stopped', () => {
    const checks = [
      forOrigin(
        MODELS_DEV,
        check('dns', { status: 'fail', detail: 'models.dev: not found', fix: 'Check the host name.' }),
      ),
      forOrigin(MODELS_DEV, skipped('tcp', 'DNS failed')),
    ];
    const optional = asOptional(MODELS_DEV, checks);
    expect(optional).toEqual([
      expect.objectContaining({
        id: 'dns',
        title: 'models.dev DNS',
        status: 'warn',
        fix: 'Check the host name. The feed still works without models.dev, only without release dates; set MODEL_FEED_MODELS_DEV_URL=off to stop asking it.',
      }),
    ]);
    expect(exitCodeFor(optional)).toBe(0);
    // The catalog's failure stays one, with its skipped steps.
    expect(asOptional(CATALOG, checks)).toEqual(checks);
  });
});

describe('what each answer holds', () => {
  it('the catalog: models listed, and whether more pages follow', () => {
    const body = answer([
      listing({
        id: 'openai/gpt-5',
        name: 'GPT-5',
        prompt: '0.00000125',
        completion: '0.00001',
        created: T0,
      }),
    ]);
    expect(readCatalog(body, T0)).toEqual({ ok: true, summary: '1 model listed' });
    expect(readCatalog({ ...body, links: { next: '/api/v1/models?page=2' } }, T0)).toEqual({
      ok: true,
      summary: '1 model listed on its first page (more follow)',
    });
    expect(readCatalog({ data: [] }, T0)).toEqual({ ok: false, reason: 'it lists no model' });
    expect(readCatalog('<html>', T0)).toMatchObject({ ok: false });
  });

  it('models.dev, Hugging Face, the deprecations', () => {
    expect(
      readModelsDev(modelsDevAnswer({ openai: [{ id: 'gpt-5' }], anthropic: [{ id: 'claude-opus-4' }] })),
    ).toEqual({
      ok: true,
      summary: '2 providers, 2 models',
    });
    expect(readHuggingFace([])).toMatchObject({ ok: true });
    expect(readHuggingFace({ error: 'x' })).toMatchObject({ ok: false });
    expect(readDeprecations({ nothing: true })).toMatchObject({ ok: false });
  });
});

describe('the record', () => {
  const head = {
    takenAt: T0 - 7_500,
    recordingSince: T0 - 30 * 86_400,
    lastChangeTime: T0 - 7_500,
    polls: 120,
    lastPoll: { takenAt: T0 - 7_500, origins: { openrouter: 'ok', huggingface: 'HTTP 503' } },
    state: {},
  };

  it('where it is, the newest snapshot and its age, the polls since when, the last poll', () => {
    const found = checkRecord({ folder: '/state/public/abc', head, unreadable: undefined }, T0, 3600);
    expect(found.status).toBe('pass');
    expect(found.detail).toMatch(
      /^\/state\/public\/abc: newest snapshot \S+Z \(2 h 5 min ago, older than the refresh age of 3600 s: the next read fetches anew\); 120 polls recorded since \S+Z; last poll: openrouter ok, huggingface HTTP 503$/,
    );
  });

  it('none yet, unreadable, or a folder that cannot be read', () => {
    expect(checkRecord({ folder: '/s', head: null, unreadable: undefined }, T0, 60)).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining('nothing recorded yet'),
    });
    expect(checkRecord({ folder: '/s', head: null, unreadable: 'not JSON' }, T0, 60).status).toBe('warn');
    const denied = Object.assign(new Error('EACCES'), { code: 'EACCES' });
    expect(checkRecord({ folder: '/s', error: denied }, T0, 60).status).toBe('fail');
  });

  it('ages in words', () => {
    expect([40, 600, 7_500, 3 * 86_400 + 3600].map(ageInWords)).toEqual([
      '40 s',
      '10 min',
      '2 h 5 min',
      '3 days 1 h',
    ]);
  });
});

describe('the source', () => {
  it('the public settings: no key, no base URL; a key set is said to be unused', () => {
    const env = { MODEL_FEED_SOURCE: 'public', MODEL_FEED_API_KEY: 'mfsk_live_0123456789abcdef' };
    const settings = checkPublicSettings(resolveConfig({}, env), env);
    expect(settings.status).toBe('pass');
    expect(settings.detail).toMatch(/^source public from MODEL_FEED_SOURCE; refresh 3600 s \(default\);/);
    expect(settings.detail).toContain('MODEL_FEED_API_KEY is set but not used');
    expect(settings.detail).not.toContain('0123456789abcdef');
  });

  it('the service with no key names the ways on without an account; with a key, or another source, nothing', () => {
    expect(checkNoAccount(resolveConfig({}, {}), {})).toMatchObject({
      id: 'source',
      status: 'warn',
      fix: expect.stringMatching(/--source public.*--sandbox/),
    });
    const keyed = { MODEL_FEED_API_KEY: 'mfsk_x_0123456789' };
    expect(checkNoAccount(resolveConfig({}, keyed), keyed)).toBeUndefined();
    expect(checkNoAccount(resolveConfig({ sandbox: true }, {}), {})).toBeUndefined();
  });
});
