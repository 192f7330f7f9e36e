import { fileURLToPath } from 'node:url';
import packageJson from '../../package.json';
import { processIo } from './output';
import { runCli } from './program';

// Bundled to out/cli/citadel.mjs; from there, as from main/cli/, the package root is two levels up.
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

process.exitCode = await runCli(process.argv.slice(2), { io: processIo, packageRoot, version: packageJson.version });
