/**
 * The open model repository (Hugging Face), read for two things: new uploads by the organisations
 * the aggregator's catalog links to (`hugging_face_id`), and how much those linked repositories
 * are downloaded and liked.
 *
 * The requests are planned here, pure, so the fetcher only fetches them: per organisation, two
 * listings of `GET /api/models` (no key; 500 calls per 5 minutes per address):
 * - `newest`: `sort=createdAt&direction=-1`, its latest uploads;
 * - `popular`: `sort=downloads&direction=-1`, its most downloaded repositories, where the ones the
 *   catalog links are found (a linked model is usually months old, far below the newest uploads).
 * At most MAX_ORGS organisations: those the catalog links most models to. On the catalog of
 * 2026-08-22, 168 listings link 152 repositories in 36 organisations; the first 20 hold 134 of
 * those repositories (150 listings).
 *
 * Re-uploads and quantisations collapse onto one base model (`uploadKey`):
 * 1. a `base_model:quantized:<repo>` tag leads to that repository, followed up to a few steps
 *    while the listings know the next one: a quantisation is the same model by definition;
 * 2. the repository's name then loses its trailing packaging and variant words (`-GGUF`, `-AWQ`,
 *    `-FP8`, `-Instruct`, `-Base`, `-it`, …), so `Qwen3-8B`, `Qwen3-8B-Base`, `Qwen3-8B-FP8` and
 *    `Qwen3-8B-Instruct-GGUF` are one base, `qwen/qwen3-8b`;
 * 3. the key keeps the base's organisation: two organisations' `…-7b` are two models.
 * A fine-tune tag (`base_model:finetune:`) is not followed: a vendor's fine-tune of its own base
 * (`DeepSeek-R1` on `DeepSeek-V3-Base`) is a model of its own.
 */

import * as z from 'zod';
import { once } from '../once.js';
import { vendorOf } from './model-id.js';
import type { CatalogSnapshot } from './openrouter-catalog.js';

export const MAX_ORGS = 20;
/** Uploads per organisation in the `newest` listing: weeks of a busy vendor's uploads. */
export const NEWEST_LIMIT = 50;
/** Repositories per organisation in the `popular` listing. */
export const POPULAR_LIMIT = 100;
/** Per answer: the limits above ask for far fewer; the bound is for an origin that ignores them. */
const MAX_REPOS_PER_ANSWER = 1_000;
const MAX_TAGS = 200;
const MAX_TAG_LENGTH = 300;
const MAX_BASE_STEPS = 4;

/** An organisation name as the repository allows it; anything else is not asked for. */
const ORG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;
/** `org/name` as the repository allows it. */
const REPO_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

export type HuggingFaceLane = 'newest' | 'popular';

export interface HuggingFaceRequest {
  /** The organisation as the catalog spells it. */
  readonly org: string;
  readonly lane: HuggingFaceLane;
  /** Path and query, to append to the origin's base URL. */
  readonly path: string;
}

export interface HuggingFaceAnswer {
  readonly request: HuggingFaceRequest;
  /** The parsed JSON body of a successful answer. */
  readonly body: unknown;
}

export interface HuggingFaceRepo {
  /** `org/name` as listed. */
  readonly id: string;
  /** Unix seconds of the repository's creation. */
  readonly createdAt: number | null;
  /** Downloads in the last 30 days, as the listing counts them. */
  readonly downloads: number | null;
  readonly likes: number | null;
  /** The repository this one quantises, from its `base_model:quantized:` tag. */
  readonly quantizes: string | null;
}

export interface HuggingFaceListings {
  /** By lower-cased id. */
  readonly repos: ReadonlyMap<string, HuggingFaceRepo>;
  /** Organisations (lower case) whose `newest` listing was read in this run. */
  readonly answeredOrgs: ReadonlySet<string>;
  /** Entries left out: not an object, no usable id, or beyond the bounds. */
  readonly skipped: number;
}

/** The organisations to follow, most-linked first, and their listings. */
export function planHuggingFaceRequests(catalog: CatalogSnapshot): HuggingFaceRequest[] {
  const orgs = new Map<string, { spelling: string; links: Set<string>; newest: number }>();
  for (const model of catalog.models.values()) {
    const org = orgOf(model.huggingFaceId);
    if (model.alias || org === null) continue;
    const key = org.toLowerCase();
    const known = orgs.get(key) ?? { spelling: org, links: new Set<string>(), newest: 0 };
    known.links.add(model.huggingFaceId!.toLowerCase());
    known.newest = Math.max(known.newest, model.created ?? 0);
    orgs.set(key, known);
  }
  const chosen = [...orgs.values()]
    .sort((a, b) => b.links.size - a.links.size || b.newest - a.newest || (a.spelling < b.spelling ? -1 : 1))
    .slice(0, MAX_ORGS);
  return chosen.flatMap(({ spelling }) => [
    { org: spelling, lane: 'newest', path: listingPath(spelling, 'createdAt', NEWEST_LIMIT) },
    { org: spelling, lane: 'popular', path: listingPath(spelling, 'downloads', POPULAR_LIMIT) },
  ]);
}

function listingPath(org: string, sort: string, limit: number): string {
  return `/api/models?author=${encodeURIComponent(org)}&sort=${sort}&direction=-1&limit=${limit}`;
}

/** The organisation of an `org/name` repository id; null for anything else. */
export function orgOf(repoId: string | null): string | null {
  if (repoId === null || !REPO_ID.test(repoId)) return null;
  const org = repoId.slice(0, repoId.indexOf('/'));
  return ORG_NAME.test(org) ? org : null;
}

/** Built on the first parse: a process that answers from its record never needs them. */
const schemas = once(() => {
  const RepoSchema = z.looseObject({
    id: z.string().regex(REPO_ID),
    createdAt: z.iso.datetime({ offset: true }).nullish().catch(null),
    downloads: z.number().int().nonnegative().nullish().catch(null),
    likes: z.number().int().nonnegative().nullish().catch(null),
    tags: z.array(z.unknown()).max(MAX_TAGS).nullish().catch(null),
    private: z.boolean().nullish().catch(null),
  });

  return { RepoSchema };
});

/** Normalises the answers of one run; a failed request is simply absent from `answers`. */
export function parseHuggingFaceListings(answers: readonly HuggingFaceAnswer[]): HuggingFaceListings {
  const { RepoSchema } = schemas();
  const repos = new Map<string, HuggingFaceRepo>();
  const answeredOrgs = new Set<string>();
  let skipped = 0;
  for (const { request, body } of answers) {
    if (!Array.isArray(body)) continue;
    const org = request.org.toLowerCase();
    if (request.lane === 'newest') answeredOrgs.add(org);
    for (const [position, raw] of body.entries()) {
      const entry = position < MAX_REPOS_PER_ANSWER ? RepoSchema.safeParse(raw) : null;
      // A listing by author holds that author's repositories only; anything else is not trusted.
      if (
        entry?.success !== true ||
        entry.data.private === true ||
        orgOf(entry.data.id)?.toLowerCase() !== org
      ) {
        skipped += 1;
        continue;
      }
      repos.set(entry.data.id.toLowerCase(), {
        id: entry.data.id,
        createdAt: unixSeconds(entry.data.createdAt),
        downloads: entry.data.downloads ?? null,
        likes: entry.data.likes ?? null,
        quantizes: quantizedBase(entry.data.tags ?? []),
      });
    }
  }
  return { repos, answeredOrgs, skipped };
}

function unixSeconds(iso: string | null | undefined): number | null {
  if (iso == null) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** The one repository a `base_model:quantized:<id>` tag names; null for none or several. */
function quantizedBase(tags: readonly unknown[]): string | null {
  const bases = new Set<string>();
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.length > MAX_TAG_LENGTH) continue;
    const base = /^base_model:quantized:(.+)$/.exec(tag)?.[1];
    if (base !== undefined && REPO_ID.test(base)) bases.add(base);
  }
  return bases.size === 1 ? [...bases][0]! : null;
}

/** Trailing words that name a packaging, a precision or a tuning of one model, not another model. */
const VARIANT_WORD =
  /-(gguf|ggml|awq|gptq|exl2|exl3|mlx|onnx|fp8|fp16|bf16|fp4|nvfp4|mxfp4|int4|int8|w4a16|w8a8|4bit|8bit|bnb|dynamic|quantized|instruct|chat|base|it|pt|hf)$/;

/** The base model an upload stands for, as `org/name` in lower case (see the rule above). */
export function uploadKey(repoId: string, repos: ReadonlyMap<string, HuggingFaceRepo>): string {
  let root = repoId;
  for (let step = 0; step < MAX_BASE_STEPS; step += 1) {
    const base = repos.get(root.toLowerCase())?.quantizes;
    if (base == null) break;
    root = base;
  }
  const [org = '', name = ''] = root.toLowerCase().split('/');
  let stem = name;
  for (let previous = ''; previous !== stem; ) {
    previous = stem;
    stem = stem.replace(VARIANT_WORD, '');
  }
  return `${org}/${stem === '' ? name : stem}`;
}

/** The catalog's vendor namespace for an organisation: the namespace of a model linking to it. */
export function namespaceOfOrg(org: string, catalog: CatalogSnapshot): string | null {
  const key = org.toLowerCase();
  for (const model of catalog.models.values()) {
    if (!model.alias && orgOf(model.huggingFaceId)?.toLowerCase() === key) return vendorOf(model.baseId);
  }
  return null;
}
