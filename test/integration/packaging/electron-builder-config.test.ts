import { DebugLogger } from 'builder-util';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config';
import type { Configuration } from 'app-builder-lib';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/run-cli';

/** electron-builder.yml as electron-builder itself loads it (and merges any package.json "build"). */
const loadConfig = () => getConfig(REPO_ROOT, null, null);
const validate = (config: Configuration) => validateConfiguration(config, new DebugLogger(false));

describe('electron-builder.yml', () => {
  it("matches electron-builder's own JSON schema (app-builder-lib/scheme.json)", async () => {
    await expect(validate(await loadConfig())).resolves.toBeUndefined();
  });

  it('would be refused by that schema with a misspelt fuse or target option', async () => {
    const config = await loadConfig();
    await expect(validate({ ...config, electronFuses: { ...config.electronFuses, runAsNod: false } as never })).rejects.toThrow(/configuration\.electronFuses/);
    await expect(validate({ ...config, linux: { ...config.linux, targets: ['AppImage'] } as never })).rejects.toThrow(/configuration\.linux/);
  });

  it('packs the three app bundles and the CLI without source maps, and of node_modules only the keychain binding', async () => {
    const config = await loadConfig();
    // electron-builder normalizes the patterns into one file set; the binding is a file set of its own.
    expect(config.files).toEqual([
      { filter: ['out/main/**', 'out/preload/**', 'out/renderer/**', 'out/cli/**', 'package.json', '!**/*.map', '!node_modules/**'] },
      { from: 'node_modules/@napi-rs', to: 'node_modules/@napi-rs', filter: ['keyring/**', 'keyring-*/**'] },
    ]);
    expect(config.extraMetadata).toEqual({ main: 'out/main/main.js' });
  });

  it('builds AppImage and deb for Linux, dmg for macOS, NSIS for Windows', async () => {
    const config = await loadConfig();
    expect([config.linux?.target, config.mac?.target, config.win?.target]).toEqual([['AppImage', 'deb'], ['dmg'], ['nsis']]);
  });

  it('fuses runAsNode and the inspector off in packaged builds', async () => {
    expect((await loadConfig()).electronFuses).toMatchObject({ runAsNode: false, enableNodeCliInspectArguments: false });
  });
});
