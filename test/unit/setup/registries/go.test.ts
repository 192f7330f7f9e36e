/**
 * Issue 30: a Go step reaches the module proxies and checksum database the operator's Go settings
 * name (environment, else the user's go env file), never `direct` VCS hosts.
 */
import { describe, expect, it } from 'vitest';
import { bindRegistries } from '../../../../main/setup/registries';
import { useTempDirs } from '../../../support/temp-dir';
import { committedOf, operatorEnv, writeTree } from './fixtures';

const tempDir = useTempDirs();
const NO_NPM = () => Promise.reject(new Error('npm is not read for a Go step'));
const bind = (env: Record<string, string>) => bindRegistries({ command: 'go', args: ['mod', 'download'] }, { env, npm: NO_NPM }, committedOf({}));

function home(files: Record<string, string> = {}): string {
  const dir = tempDir('citadel-go-home-');
  writeTree(dir, files);
  return dir;
}

describe('go', () => {
  it("unconfigured: proxy.golang.org and sum.golang.org, and the step is told Go's defaults", async () => {
    expect(await bind(operatorEnv(home()))).toEqual({
      hosts: ['proxy.golang.org', 'sum.golang.org'],
      env: { GONOPROXY: '', GONOSUMDB: '', GOPRIVATE: '', GOPROXY: 'https://proxy.golang.org,direct', GOSUMDB: 'sum.golang.org' },
    });
  });

  it('the go env file ($XDG_CONFIG_HOME/go/env, or GOENV) and the environment over it; GOENV=off ignores the file', async () => {
    const dir = home({ '.config/go/env': 'GOPROXY=https://goproxy.example.com|https://proxy.golang.org,direct\nGOSUMDB=sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ex18htTTAD8OXgO https://sum.example.com/sumdb\nGOPRIVATE=git.example.com\n' });
    expect(await bind(operatorEnv(dir))).toMatchObject({
      hosts: ['goproxy.example.com', 'proxy.golang.org', 'sum.example.com'],
      env: { GOPROXY: 'https://goproxy.example.com|https://proxy.golang.org,direct', GOPRIVATE: 'git.example.com' },
    });
    expect((await bind(operatorEnv(dir, { GOPROXY: 'https://env.example.com', GOSUMDB: 'off' }))).hosts).toEqual(['env.example.com']);
    expect((await bind(operatorEnv(dir, { GOENV: 'off' }))).hosts).toEqual(['proxy.golang.org', 'sum.golang.org']);
    const other = home({ 'goenv': 'GOPROXY=https://named.example.com\n' });
    expect((await bind(operatorEnv(dir, { GOENV: `${other}/goenv` }))).hosts).toEqual(['named.example.com', 'sum.golang.org']);
  });

  it('GOPROXY naming no proxy (direct, off) is refused; a proxy or sumdb that is not https on 443 is refused naming the setting', async () => {
    for (const value of ['direct', 'off', 'direct,off']) {
      await expect(bind(operatorEnv(home(), { GOPROXY: value })), value).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`go: GOPROXY (environment) is ${value}, which names no module proxy`) });
    }
    const dir = home({ '.config/go/env': 'GOPROXY=http://goproxy.example.com\n' });
    await expect(bind(operatorEnv(dir))).rejects.toMatchObject({ message: expect.stringContaining(`go: GOPROXY in ${dir}/.config/go/env names http://goproxy.example.com`) });
    await expect(bind(operatorEnv(home(), { GOSUMDB: 'sum.golang.org https://10.0.0.1' }))).rejects.toMatchObject({ message: expect.stringContaining('go: GOSUMDB (environment) names https://10.0.0.1') });
    await expect(bind(operatorEnv(home(), { GOPROXY: 'https://goproxy.example.com:8443' }))).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED' });
  });
});
