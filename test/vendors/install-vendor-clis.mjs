// Installs the pinned real vendor CLIs into a cache folder outside the repository, only when one is
// missing or reports another version. npm runs no install script of any package; the one setup
// script a vendor needs (Claude Code's install.cjs, which links its native binary) is run by name,
// as that vendor's own error message says to.
// Usage: node test/vendors/install-vendor-clis.mjs   (cache: $CITADEL_VENDOR_CACHE or ~/.cache/citadel-vendors)
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { installedVersionOutput, isExpectedVersion, VENDOR_CLIS, vendorBinDir, vendorPrefix } from './vendor-clis.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function ensure(cli) {
  const label = `${cli.packageName}@${cli.version}`;
  const before = installedVersionOutput(cli);
  if (isExpectedVersion(cli, before)) {
    console.log(`vendor CLIs: ${label} already installed (${before}) in ${vendorBinDir(cli)}`);
    return;
  }
  const prefix = vendorPrefix(cli);
  console.log(`vendor CLIs: installing ${label} into ${prefix} (found: ${before ?? 'nothing'})`);
  try {
    mkdirSync(prefix, { recursive: true });
  } catch (error) {
    throw new Error(`cannot create the install folder ${prefix} (${error.code ?? error.message}); set CITADEL_VENDOR_CACHE to a writable folder`);
  }
  const install = spawnSync(npm, ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', label], { stdio: 'inherit', shell: false });
  if (install.status !== 0) {
    throw new Error(`npm install of ${label} into ${prefix} failed (${install.error?.message ?? `exit ${install.status}`})`);
  }
  if (cli.setupScript !== null) {
    const packageDir = path.join(prefix, 'node_modules', ...cli.packageName.split('/'));
    const setup = spawnSync(process.execPath, [cli.setupScript], { cwd: packageDir, stdio: 'inherit', shell: false });
    if (setup.status !== 0) throw new Error(`${label}'s ${cli.setupScript} failed (${setup.error?.message ?? `exit ${setup.status}`})`);
  }
  const after = installedVersionOutput(cli);
  if (!isExpectedVersion(cli, after)) {
    throw new Error(`${label} installed into ${prefix}, but \`${cli.bin} --version\` printed ${JSON.stringify(after)} instead of version ${cli.version}`);
  }
  console.log(`vendor CLIs: installed ${label} (${after}) in ${vendorBinDir(cli)}`);
}

try {
  for (const cli of VENDOR_CLIS) ensure(cli);
} catch (error) {
  console.error(`vendor CLIs: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
