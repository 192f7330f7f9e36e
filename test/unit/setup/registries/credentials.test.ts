/**
 * Review 30 F3: a registry URL in the operator's settings that carries credentials (a user and
 * password, a token as the user, a query) would be handed to the setup step, where the
 * repository's code runs and can write it into the worktree. Every toolchain refuses it, naming the
 * tool and the setting, never printing the secret; the step's environment (registryEnv, what
 * setup-branch.ts gives the step) is refused the same way.
 */
import { describe, expect, it } from 'vitest';
import { readNpmConfig } from '../../../../main/setup/package-toolchain';
import { bindRegistries, registryEnv, type OperatorNpm } from '../../../../main/setup/registries';
import { CitadelError } from '../../../../shared/errors';
import { useTempDirs } from '../../../support/temp-dir';
import { committedOf, operatorEnv, writeTree } from './fixtures';

const tempDir = useTempDirs();
const SECRET = 'S3CRET-TOKEN';
const PUBLIC: OperatorNpm = { registry: 'https://registry.npmjs.org/', scopes: {} };
const FORMS = [`https://ci-bot:${SECRET}@registry.example.com/simple`, `https://${SECRET}@registry.example.com/simple`, `https://registry.example.com/simple?token=${SECRET}`];

function home(files: Record<string, string> = {}): string {
  const dir = tempDir('citadel-credentials-home-');
  writeTree(dir, files);
  return dir;
}

/** The refusal of both the binding and the step's environment, checked to name `setting` and never the secret. */
async function refusedBoth(command: string, args: string[], env: Record<string, string>, setting: string, npm: OperatorNpm = PUBLIC): Promise<void> {
  const context = { env, npm: () => Promise.resolve(npm) };
  for (const attempt of [() => bindRegistries({ command, args }, context, committedOf({})), () => registryEnv({ command, args }, context)]) {
    const error = await attempt().then(
      (value) => {
        throw new Error(`not refused: ${JSON.stringify(value)}`);
      },
      (cause: unknown) => cause,
    );
    expect(error).toBeInstanceOf(CitadelError);
    const { code, message, details } = error as CitadelError;
    expect({ code, message }, setting).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`${setting} names https://registry.example.com with credentials`) });
    expect(message).toContain('credentials are not passed into setup');
    expect(JSON.stringify({ message, details })).not.toContain(SECRET);
    expect(message).not.toContain('ci-bot');
  }
}

describe('credentials in an operator registry URL', () => {
  it('pip: PIP_INDEX_URL, PIP_EXTRA_INDEX_URL and pip.conf index-url', async () => {
    for (const url of FORMS) {
      await refusedBoth('python3', ['-m', 'pip', 'install', '-r', 'requirements.txt'], operatorEnv(home(), { PIP_INDEX_URL: url }), 'pip: PIP_INDEX_URL');
      await refusedBoth('pip', ['install', '.'], operatorEnv(home(), { PIP_EXTRA_INDEX_URL: `https://pypi.org/simple ${url}` }), 'pip: PIP_EXTRA_INDEX_URL');
      const dir = home({ '.config/pip/pip.conf': `[global]\nindex-url = ${url}\n` });
      await refusedBoth('pip', ['install', '.'], operatorEnv(dir), `pip: ${dir}/.config/pip/pip.conf [global] index-url`);
    }
  });

  it('uv: UV_DEFAULT_INDEX, UV_INDEX and uv.toml [[index]]', async () => {
    for (const url of FORMS) {
      await refusedBoth('uv', ['sync'], operatorEnv(home(), { UV_DEFAULT_INDEX: url }), 'uv: UV_DEFAULT_INDEX');
      await refusedBoth('uv', ['sync'], operatorEnv(home(), { UV_INDEX: `corp=${url}` }), 'uv: UV_INDEX');
      const dir = home({ '.config/uv/uv.toml': `[[index]]\nurl = "${url}"\ndefault = true\n` });
      await refusedBoth('uv', ['sync'], operatorEnv(dir), `uv: ${dir}/.config/uv/uv.toml [[index]] url (default)`);
    }
  });

  it('go: a proxy of GOPROXY (environment or go env file) and the URL of GOSUMDB', async () => {
    for (const url of FORMS) {
      await refusedBoth('go', ['mod', 'download'], operatorEnv(home(), { GOPROXY: `${url},direct` }), 'go: GOPROXY (environment)');
      const dir = home({ '.config/go/env': `GOPROXY=${url}\n` });
      await refusedBoth('go', ['mod', 'download'], operatorEnv(dir), `go: GOPROXY in ${dir}/.config/go/env`);
      await refusedBoth('go', ['mod', 'download'], operatorEnv(home(), { GOSUMDB: `sum.example.com+abc ${url}` }), 'go: GOSUMDB (environment)');
    }
  });

  it("pnpm, Yarn and bun: npm's registry, YARN_NPM_REGISTRY_SERVER, ~/.yarnrc.yml, BUN_CONFIG_REGISTRY", async () => {
    for (const url of FORMS) {
      await refusedBoth('pnpm', ['install'], operatorEnv(home()), "pnpm: npm's configured registry (npm config get registry: npm_config_registry, ~/.npmrc, the global npmrc)", { registry: url, scopes: {} });
      await refusedBoth('yarn', ['install'], operatorEnv(home(), { YARN_NPM_REGISTRY_SERVER: url }), 'yarn: YARN_NPM_REGISTRY_SERVER');
      const dir = home({ '.yarnrc.yml': `npmRegistryServer: "${url}"\n` });
      await refusedBoth('yarn', ['install'], operatorEnv(dir), `yarn: ${dir}/.yarnrc.yml npmRegistryServer`);
      await refusedBoth('bun', ['install'], operatorEnv(home(), { BUN_CONFIG_REGISTRY: url }), 'bun: BUN_CONFIG_REGISTRY');
    }
  });

  it('cargo: a replacement source and CARGO_REGISTRIES_<NAME>_INDEX', async () => {
    for (const url of FORMS) {
      const dir = home({ '.cargo/config.toml': `[source.crates-io]\nreplace-with = "corp"\n[source.corp]\nregistry = "sparse+${url}"\n` });
      const error = await bindRegistries({ command: 'cargo', args: ['fetch'] }, { env: operatorEnv(dir), npm: () => Promise.resolve(PUBLIC) }, committedOf({})).catch((cause: unknown) => cause as CitadelError);
      expect(error).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`cargo: ${dir}/.cargo/config.toml [source.corp] names https://registry.example.com with credentials`) });
      expect(JSON.stringify(error)).not.toContain(SECRET);
      const fromEnv = await bindRegistries({ command: 'cargo', args: ['fetch'] }, { env: operatorEnv(home(), { CARGO_REGISTRIES_CORP_INDEX: url }), npm: () => Promise.resolve(PUBLIC) }, committedOf({})).catch((cause: unknown) => cause as CitadelError);
      expect(fromEnv).toMatchObject({ message: expect.stringContaining('cargo: CARGO_REGISTRIES_CORP_INDEX names https://registry.example.com with credentials') });
    }
  });

  it("npm: a token in npm_config_registry, which npm prints (a password it withholds), is refused before any npm step's environment", async () => {
    const env = { ...operatorEnv(home()), PATH: process.env.PATH ?? '', npm_config_registry: `https://${SECRET}@registry.example.com/` };
    const error = await readNpmConfig(env).catch((cause: unknown) => cause as CitadelError);
    expect(error).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining("npm's configured registry (npm_config_registry, ~/.npmrc or the global npmrc) carries credentials") });
    expect(JSON.stringify(error)).not.toContain(SECRET);
    const withheld = await readNpmConfig({ ...env, npm_config_registry: `https://ci-bot:${SECRET}@registry.example.com/` }).catch((cause: unknown) => cause as CitadelError);
    expect(withheld).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining('credentials are not passed into setup') });
    expect(JSON.stringify(withheld)).not.toContain(SECRET);
  });

  it('an unparsable registry value is not printed past its last @', async () => {
    const error = await bindRegistries({ command: 'pip', args: ['install', '.'] }, { env: operatorEnv(home(), { PIP_INDEX_URL: `https://ci-bot:${SECRET}@registry.example.com:99999/simple` }), npm: () => Promise.resolve(PUBLIC) }, committedOf({})).catch((cause: unknown) => cause as CitadelError);
    expect(error).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining('pip: PIP_INDEX_URL is not a URL (…@registry.example.com:99999/simple)') });
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });
});
