// Tests run the CLI as a real child process, so it is built once, fresh, before any test.
import { buildCli } from '../../build/build-cli.mjs';

export default async function setup(): Promise<void> {
  await buildCli();
}
