// zod compiles fast parsers with `new Function` and probes for it when it builds an object schema;
// under the CSP both shells send (script-src 'self', no 'unsafe-eval') that probe is reported as a
// violation. zod keeps its config on this global (zod/v4/core/core.js) precisely so it can be shared
// and set before zod loads: main.ts sets it first, so the first page need not load zod to make every
// later schema jitless (the fork list's compiled parser, lib/generated/, needs no eval).
// test/unit/renderer/zod-jitless.test.ts holds zod to that.
const zodHost = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
(zodHost.__zod_globalConfig ??= {}).jitless = true;
