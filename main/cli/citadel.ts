import packageJson from '../../package.json';
import { processIo } from './io/output';
import { runCli } from './program';

process.exitCode = await runCli(process.argv.slice(2), { io: processIo, version: packageJson.version });
