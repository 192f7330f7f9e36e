import { z } from 'zod';

// zod compiles fast parsers with `new Function` and probes for it; under the CSP both shells send
// (script-src 'self', no 'unsafe-eval') that probe is reported as a violation. main.ts imports
// this first, so every parse in this window runs without generated code.
z.config({ jitless: true });
