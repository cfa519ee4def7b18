/**
 * zod 4 compiles each object schema's parser with `new Function` on its first parse. A server
 * parses most of its schemas once or a few times per session (the SDK's request shapes, the
 * service's answers), so that compile never pays back, and V8's code cache cannot keep eval'd code:
 * every start pays it again. Interleaved A/B (scripts/bench-startup-ab.mjs, 20 runs, Node 20, load
 * 2–4), spawn → `tools/list`, JIT → jitless: 2025 first start −8.3 %, warm −9.0 %; 2026 first −6.3 %,
 * warm −7.3 %. Per call (600 interleaved calls, cache off), it changed nothing beyond noise:
 * list_model_changes −0.10 ms, get_model −0.04 ms, search_models +0.00 ms.
 *
 * It must run before any schema is built (each reads the setting when it is made), so it is the
 * first import of the server's entry.
 */

import * as z from 'zod';

z.config({ jitless: true });
