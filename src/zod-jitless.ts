/**
 * zod 4 compiles each object schema's parser with `new Function` on its first parse. A server
 * parses most of its schemas once or a few times per session (the SDK's request shapes, the
 * service's answers), so that compile never pays back, and V8's code cache cannot keep eval'd code:
 * every start pays it again. Jitless, a start to the first `tools/list` is faster in both protocol
 * eras, first and warm, and a tool call no slower.
 *
 * It must run before any schema is built (each reads the setting when it is made), so it is the
 * first import of the server's entry.
 */

import * as z from 'zod';

z.config({ jitless: true });
