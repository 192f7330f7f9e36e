/**
 * Issue 30: a Cargo step reaches crates.io's index and download hosts, or the registry the
 * operator's ~/.cargo/config.toml replaces crates.io with, never one the repository's
 * .cargo/config.toml names.
 */
import { describe, expect, it } from 'vitest';
import { bindRegistries } from '../../../../main/setup/registries';
import { useTempDirs } from '../../../support/temp-dir';
import { committedOf, operatorEnv, writeTree } from './fixtures';

const tempDir = useTempDirs();
const NO_NPM = () => Promise.reject(new Error('npm is not read for a Cargo step'));
const bind = (env: Record<string, string>, repo: Record<string, string> = {}) => bindRegistries({ command: 'cargo', args: ['fetch'] }, { env, npm: NO_NPM }, committedOf(repo));
const CRATES_IO = ['index.crates.io', 'static.crates.io'];
const MIRROR = '[source.crates-io]\nreplace-with = "corp"\n\n[source.corp]\nregistry = "sparse+https://cargo.example.com/index/"\n';

function home(files: Record<string, string> = {}): string {
  const dir = tempDir('citadel-cargo-home-');
  writeTree(dir, files);
  return dir;
}

describe('cargo', () => {
  it('unconfigured: index.crates.io and static.crates.io', async () => {
    expect(await bind(operatorEnv(home()))).toEqual({ hosts: CRATES_IO, env: {} });
  });

  it("source replacement (also chained, also in CARGO_HOME or the older `config` name), crates.io's git protocol and named registries", async () => {
    expect((await bind(operatorEnv(home({ '.cargo/config.toml': MIRROR })))).hosts).toEqual(['cargo.example.com']);
    const chained = '[source.crates-io]\nreplace-with = "a"\n[source.a]\nreplace-with = "b"\n[source.b]\nregistry = "https://git.example.com/index.git"\n';
    expect((await bind(operatorEnv(home(), { CARGO_HOME: `${home({ 'config': chained })}` }))).hosts).toEqual(['git.example.com']);
    expect((await bind(operatorEnv(home({ '.cargo/config': '[registries.crates-io]\nprotocol = "git"\n' })))).hosts).toEqual(['static.crates.io', 'github.com']);
    expect((await bind(operatorEnv(home(), { CARGO_REGISTRIES_CRATES_IO_PROTOCOL: 'git' }))).hosts).toEqual(['static.crates.io', 'github.com']);
    const named = '[registries]\ninternal = { index = "sparse+https://crates.internal.example.com/" }\n';
    expect((await bind(operatorEnv(home({ '.cargo/config.toml': named })))).hosts).toEqual([...CRATES_IO, 'crates.internal.example.com']);
    expect((await bind(operatorEnv(home(), { CARGO_REGISTRIES_OTHER_INDEX: 'sparse+https://other.example.com/' }))).hosts).toEqual([...CRATES_IO, 'other.example.com']);
  });

  it('refused: a registry not https on 443, a replacement loop or a missing target, a local directory with no host', async () => {
    const dir = home({ '.cargo/config.toml': MIRROR.replace('https://cargo.example.com', 'http://cargo.example.com') });
    await expect(bind(operatorEnv(dir))).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`cargo: ${dir}/.cargo/config.toml [source.corp] names http://cargo.example.com`) });
    await expect(bind(operatorEnv(home({ '.cargo/config.toml': '[source.crates-io]\nreplace-with = "a"\n[source.a]\nreplace-with = "crates-io"\n' })))).rejects.toMatchObject({ message: expect.stringContaining('replace-with loops') });
    await expect(bind(operatorEnv(home({ '.cargo/config.toml': '[source.crates-io]\nreplace-with = "gone"\n' })))).rejects.toMatchObject({ message: expect.stringContaining('names no [source.gone] or [registries.gone]') });
    await expect(bind(operatorEnv(home({ '.cargo/config.toml': '[source.crates-io]\nreplace-with = "vendored"\n[source.vendored]\ndirectory = "/srv/vendor"\n' })))).rejects.toMatchObject({
      message: expect.stringContaining('use "network": "none"'),
    });
  });

  it("the repository's .cargo/config.toml naming another registry is refused; vendoring and the operator's own mirror are accepted", async () => {
    const env = operatorEnv(home({ '.cargo/config.toml': MIRROR }));
    await expect(bind(env, { '.cargo/config.toml': '[source.crates-io]\nreplace-with = "evil"\n[source.evil]\nregistry = "sparse+https://evil.example/index/"\n' })).rejects.toMatchObject({
      code: 'SETUP_REGISTRY_UNSUPPORTED',
      message: expect.stringContaining('cargo: .cargo/config.toml [source.evil] names https://evil.example/index/'),
    });
    await expect(bind(env, { '.cargo/config': '[registries.evil]\nindex = "https://evil.example/git-index"\n' })).rejects.toMatchObject({ message: expect.stringContaining('cargo: .cargo/config [registries.evil]') });
    await expect(bind(env, { '.cargo/config.toml': '[source.crates-io]\nreplace-with = "g"\n[source.g]\ngit = "https://evil.example/repo"\n' })).rejects.toMatchObject({ message: expect.stringContaining('[source.g] names https://evil.example/repo') });
    const vendored = '[source.crates-io]\nreplace-with = "vendored-sources"\n\n[source.vendored-sources]\ndirectory = "vendor"\n';
    expect((await bind(env, { '.cargo/config.toml': vendored })).hosts).toEqual(['cargo.example.com']);
    expect((await bind(env, { '.cargo/config.toml': MIRROR })).hosts).toEqual(['cargo.example.com']);
  });
});
