// Which labelled references a catalog makes findable: recall is counted over these alone, since no
// tool can tie a name to a catalog that has nothing near it (`claude-2`, when the catalog lists no
// Claude 2, is a reference a person sees and a catalog check cannot).
//
// Findable: the token, case aside and without a variant suffix (`:free`), is a listed id, the part
// of one after its vendor (a listed variant's base included: `gpt-5-codex` when only
// `gpt-5-codex:batch` is listed), or a linked Hugging Face id; or it is one of those with a version
// suffix: a date (`gpt-4o-2024-05-13`, `claude-3-5-sonnet-20241022`, `-0613`) or `-latest`; or it is `vendor/name` with a
// vendor the catalog lists and a name close to one of that vendor's (at most two edits, or one
// `-`-separated part more or less): check's own rule for near misses.

const VERSION_SUFFIX = /(?:[-@](?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{2}-\d{2}|latest))+$/;

/** Levenshtein distance, stopping early once past `limit`. */
function withinEdits(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      best = Math.min(best, current[j]);
    }
    if (best > limit) return false;
    previous = current;
  }
  return previous[b.length] <= limit;
}

/** One `-`-separated part added or removed (`-lite`, `-preview`, a date, which counts as one part). */
function onePartApart(a, b) {
  const parts = (name) => name.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, '$1$2$3').split('-');
  const [x, y] = [parts(a), parts(b)];
  const [longer, shorter] = x.length > y.length ? [x, y] : [y, x];
  if (longer.length !== shorter.length + 1) return false;
  return longer.some((_, skip) => longer.filter((__, i) => i !== skip).join('-') === shorter.join('-'));
}

/** `models`: the catalog's `data` array (the aggregator's shape: `id`, `hugging_face_id`). */
export function findableIn(models) {
  const exact = new Set();
  const namesByVendor = new Map();
  for (const model of models) {
    const id = model.id.toLowerCase().replace(/:[^/]*$/, '');
    if (id.startsWith('~')) continue;
    const [vendor, name] = id.split('/');
    exact.add(id);
    if (name) {
      exact.add(name);
      if (!namesByVendor.has(vendor)) namesByVendor.set(vendor, new Set());
      namesByVendor.get(vendor).add(name);
    }
    if (model.hugging_face_id) exact.add(model.hugging_face_id.toLowerCase());
  }
  return (token) => {
    const plain = token.toLowerCase().replace(/:[a-z0-9-]+$/, '');
    if (exact.has(plain) || exact.has(plain.replace(VERSION_SUFFIX, ''))) return true;
    const [vendor, name, extra] = plain.split('/');
    if (!name || extra !== undefined || !namesByVendor.has(vendor)) return false;
    for (const listed of namesByVendor.get(vendor)) {
      if (withinEdits(name, listed, 2) || onePartApart(name, listed)) return true;
    }
    return false;
  };
}
