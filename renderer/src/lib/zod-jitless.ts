import { z } from 'zod';

// zod compiles fast parsers with `new Function` and probes for it; under the CSP both shells send
// (script-src 'self', no 'unsafe-eval') that probe is reported as a violation. main.ts imports
// this before anything that parses, so every parse in this window runs without generated code (the
// fork list's compiled parser, lib/generated/, was generated ahead of time and needs no eval).
z.config({ jitless: true });
