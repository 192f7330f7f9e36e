/**
 * Issue 30: pip, uv and Poetry steps reach the indexes the operator's own configuration names
 * (PyPI by default), never ones the repository names; only npm's registry is reachable from the
 * build machine, so these are bound and refused here, not fetched from.
 */
import { describe, expect, it } from 'vitest';
import { bindRegistries, toolchainOf } from '../../../../main/setup/registries';
import { useTempDirs } from '../../../support/temp-dir';
import { committedOf, operatorEnv, writeTree } from './fixtures';

const tempDir = useTempDirs();
const NO_NPM = () => Promise.reject(new Error('npm is not read for a Python step'));
const PYPI_HOSTS = ['pypi.org', 'files.pythonhosted.org'];

function bind(command: string, args: string[], env: Record<string, string>, repo: Record<string, string> = {}) {
  return bindRegistries({ command, args }, { env, npm: NO_NPM }, committedOf(repo));
}

function home(files: Record<string, string> = {}): string {
  const dir = tempDir('citadel-python-home-');
  writeTree(dir, files);
  return dir;
}

describe('pip', () => {
  it('is pip, pip3, or python -m pip; unconfigured, it reaches PyPI and is told so', async () => {
    expect(['pip', 'pip3'].map((command) => toolchainOf(command, ['install']))).toEqual(['pip', 'pip']);
    expect(toolchainOf('python3', ['-m', 'pip', 'install', '-r', 'requirements.txt'])).toBe('pip');
    expect(toolchainOf('python3', ['-m', 'pytest'])).toBeNull();
    const bound = await bind('python3', ['-m', 'pip', 'install', '-r', 'requirements.txt'], operatorEnv(home()));
    expect(bound).toEqual({ hosts: PYPI_HOSTS, env: { PIP_INDEX_URL: 'https://pypi.org/simple' } });
  });

  it("the user's pip.conf ([global], then [install]), the legacy ~/.pip/pip.conf and the environment, the later winning", async () => {
    const dir = home({
      '.pip/pip.conf': '[global]\nindex-url = https://legacy.example.com/simple\n',
      '.config/pip/pip.conf': '[global]\nindex-url = https://global.example.com/simple\nextra-index-url =\n  https://extra-one.example.com/simple\n  https://pypi.org/simple\n[install]\nindex_url = https://install.example.com/simple\n',
    });
    expect(await bind('pip', ['install', '.'], operatorEnv(dir))).toEqual({
      hosts: ['install.example.com', 'extra-one.example.com', 'pypi.org', 'files.pythonhosted.org'],
      env: { PIP_INDEX_URL: 'https://install.example.com/simple', PIP_EXTRA_INDEX_URL: 'https://extra-one.example.com/simple https://pypi.org/simple' },
    });
    const fromEnv = await bind('pip', ['install', '.'], operatorEnv(dir, { PIP_INDEX_URL: 'https://env.example.com/simple', PIP_EXTRA_INDEX_URL: ' ' }));
    expect(fromEnv.hosts).toEqual(['env.example.com', 'extra-one.example.com', 'pypi.org', 'files.pythonhosted.org']);
    expect((await bind('pip', [], operatorEnv(home({ '.pip/pip.conf': '[global]\nindex-url = https://legacy.example.com/simple\n' })))).hosts).toEqual(['legacy.example.com']);
  });

  it('PIP_CONFIG_FILE is read last, and /dev/null turns the files off', async () => {
    const dir = home({ '.config/pip/pip.conf': '[global]\nindex-url = https://user.example.com/simple\n', 'named.conf': '[global]\nindex-url = https://named.example.com/simple\n' });
    expect((await bind('pip', [], operatorEnv(dir, { PIP_CONFIG_FILE: `${dir}/named.conf` }))).hosts).toEqual(['named.example.com']);
    expect((await bind('pip', [], operatorEnv(dir, { PIP_CONFIG_FILE: '/dev/null' }))).hosts).toEqual(PYPI_HOSTS);
  });

  it('an index that is not an https host name on 443 is refused, naming pip and the file and key', async () => {
    for (const url of ['http://pypi.example.com/simple', 'https://pypi.example.com:8443/simple', 'https://10.1.2.3/simple', 'https://localhost/simple']) {
      const dir = home({ '.config/pip/pip.conf': `[global]\nindex-url = ${url}\n` });
      await expect(bind('pip', [], operatorEnv(dir)), url).rejects.toMatchObject({
        code: 'SETUP_REGISTRY_UNSUPPORTED',
        message: expect.stringContaining(`pip: ${dir}/.config/pip/pip.conf [global] index-url names`),
      });
    }
    await expect(bind('pip', [], operatorEnv(home(), { PIP_EXTRA_INDEX_URL: 'http://mirror.example.com/simple' }))).rejects.toMatchObject({ message: expect.stringContaining('pip: PIP_EXTRA_INDEX_URL names http://mirror.example.com') });
  });

  it("a requirements file (and one it includes) or the step's arguments naming another index is refused with its line", async () => {
    const env = operatorEnv(home());
    const refused: [string[], Record<string, string>, string][] = [
      [['install', '-r', 'requirements.txt'], { 'requirements.txt': 'requests\n--index-url https://evil.example/simple\n' }, 'requirements.txt:2 sets --index-url https://evil.example/simple'],
      [['install', '-rrequirements.txt'], { 'requirements.txt': '# pinned\n-i https://evil.example/simple\n' }, 'requirements.txt:2 sets -i'],
      [['install', '--requirement=requirements/dev.txt'], { 'requirements/dev.txt': '-r base.txt\n', 'requirements/base.txt': 'flask \\\n  --extra-index-url=https://evil.example/simple\n' }, 'requirements/base.txt:1 sets --extra-index-url'],
      [['install', '-r', 'requirements.txt'], { 'requirements.txt': '-c constraints.txt\n', 'constraints.txt': '--find-links https://evil.example/wheels\n' }, 'constraints.txt:1 sets --find-links'],
      [['install', '-i', 'https://evil.example/simple', 'flask'], {}, 'the setup step sets -i'],
    ];
    for (const [args, repo, where] of refused) {
      await expect(bind('pip', args, env, repo), where).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`pip: ${where}`) });
    }
    const accepted = { 'requirements.txt': '--index-url https://pypi.org/simple/\n-f ./wheels\n-e .\nrequests # --index-url https://evil.example/\n-r ../outside.txt\n' };
    expect((await bind('pip', ['install', '-r', 'requirements.txt'], env, accepted)).hosts).toEqual(PYPI_HOSTS);
  });

  it('review 30 F6: every spelling of an index option pip accepts is refused (optparse prefixes, clusters, quotes, pip\'s line joins and breaks)', async () => {
    const env = operatorEnv(home());
    const EVIL = 'https://evil.example/simple';
    // Each was checked against pip 23.2.1's own parser (req_file.get_line_parser, and pip install on the command line).
    const inArgs: [string[], string][] = [
      [['install', '--index', EVIL, 'flask'], `the setup step sets --index (--index-url) ${EVIL}`],
      [['install', '--extra-index', EVIL, 'flask'], 'the setup step sets --extra-index (--extra-index-url)'],
      [['install', '--find', EVIL, 'flask'], 'the setup step sets --find (--find-links)'],
      [['install', '--ind=' + EVIL, 'flask'], 'the setup step sets --ind (--index-url)'],
      [['install', '-Ui', EVIL, 'flask'], `the setup step sets -i (--index-url) ${EVIL}`],
      [['install', '-Uqi' + EVIL, 'flask'], `the setup step sets -i (--index-url) ${EVIL}`],
      [['install', '-Uf', EVIL, 'flask'], 'the setup step sets -f (--find-links)'],
      [['install', '--index-url', ` ${EVIL}`, 'flask'], 'the setup step sets --index-url'],
    ];
    for (const [args, where] of inArgs) {
      await expect(bind('pip', args, env), args.join(' ')).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`pip: ${where}`) });
    }
    const inFile: [string, string][] = [
      [`--extra-index ${EVIL}\nnosuchpkg-zz\n`, 'requirements.txt:1 sets --extra-index (--extra-index-url)'],
      [`--i=${EVIL}\n`, 'requirements.txt:1 sets --i (--index-url)'],
      [`--f ${EVIL}\n`, 'requirements.txt:1 sets --f (--find-links)'],
      [`requests\n--index-url "${EVIL}"\n`, `requirements.txt:2 sets --index-url ${EVIL}`],
      [`--index-u\\\nrl ${EVIL}\n`, `requirements.txt:1 sets --index-url ${EVIL}`],
      [`# a comment\x0b--index-url ${EVIL}\n`, 'requirements.txt:2 sets --index-url'],
      [`requests\ufeff# --extra-index-url=${EVIL}\n`, 'requirements.txt:1 sets --extra-index-url'],
      ['--index-url https://${USER}.evil.example/simple\n', 'requirements.txt:1 sets --index-url https://${USER}.evil.example/simple, through an environment variable'],
      ['-r https://evil.example/requirements.txt\n', 'requirements.txt:1 sets -r (--requirement) https://evil.example/requirements.txt, a requirements file pip would fetch'],
      ["--index-url 'https://evil.example/simple\n", 'requirements.txt:1 has options pip cannot split'],
    ];
    for (const [text, where] of inFile) {
      await expect(bind('pip', ['install', '-r', 'requirements.txt'], env, { 'requirements.txt': text }), JSON.stringify(text)).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`pip: ${where}`) });
    }
    // A chain longer than setup reads is refused, not left half-checked.
    const chain = Object.fromEntries(Array.from({ length: 40 }, (_, n) => [`r${n}.txt`, `-r r${n + 1}.txt\n`]));
    await expect(bind('pip', ['install', '-r', 'r0.txt'], env, chain)).rejects.toMatchObject({ message: expect.stringContaining('name more than 32 files') });
    // What pip reads as no index option stays allowed: a requirement, a local path, file:, the operator's own index.
    const fine = { 'requirements.txt': "flask==3.0 --hash=sha256:abc\n--find-links ./wheels\n-f file:///srv/wheels\n--extra-index-url 'https://pypi.org/simple/'\n-e .\n" };
    expect((await bind('pip', ['install', '--no-index', '-r', 'requirements.txt', '-U'], env, fine)).hosts).toEqual(PYPI_HOSTS);
  });
});

describe('uv', () => {
  it('unconfigured: PyPI; the user uv.toml ([[index]] default, index-url, extra) and the environment', async () => {
    expect(await bind('uv', ['sync', '--frozen'], operatorEnv(home()))).toEqual({ hosts: PYPI_HOSTS, env: { UV_DEFAULT_INDEX: 'https://pypi.org/simple' } });
    const dir = home({
      '.config/uv/uv.toml': '[[index]]\nname = "corp"\nurl = "https://uv.example.com/simple"\ndefault = true\n\n[[index]]\nname = "torch"\nurl = "https://torch.example.com/whl"\nexplicit = true\n',
    });
    expect(await bind('uv', ['sync', '--frozen'], operatorEnv(dir))).toEqual({
      hosts: ['uv.example.com', 'torch.example.com'],
      env: { UV_DEFAULT_INDEX: 'https://uv.example.com/simple', UV_INDEX: 'https://torch.example.com/whl' },
    });
    const legacy = home({ '.config/uv/uv.toml': 'index-url = "https://legacy.example.com/simple"\nextra-index-url = [\n  "https://pypi.org/simple",\n]\n' });
    expect((await bind('uv', ['sync'], operatorEnv(legacy))).hosts).toEqual(['legacy.example.com', 'pypi.org', 'files.pythonhosted.org']);
    const env = operatorEnv(dir, { UV_DEFAULT_INDEX: 'https://env.example.com/simple', UV_INDEX: 'extra=https://extra.example.com/simple' });
    expect(await bind('uv', ['sync'], env)).toEqual({ hosts: ['env.example.com', 'extra.example.com'], env: { UV_DEFAULT_INDEX: 'https://env.example.com/simple', UV_INDEX: 'https://extra.example.com/simple' } });
    expect((await bind('uv', ['sync'], operatorEnv(dir, { UV_NO_CONFIG: '1' }))).hosts).toEqual(PYPI_HOSTS);
    expect((await bind('uv', ['sync'], operatorEnv(dir, { UV_CONFIG_FILE: `${legacy}/.config/uv/uv.toml` }))).hosts).toEqual(['legacy.example.com', 'pypi.org', 'files.pythonhosted.org']);
  });

  it('an index that is not https on 443 is refused naming uv and the key', async () => {
    const dir = home({ '.config/uv/uv.toml': '[[index]]\nurl = "http://uv.example.com/simple"\n' });
    await expect(bind('uv', ['sync'], operatorEnv(dir))).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`uv: ${dir}/.config/uv/uv.toml [[index]] url names http://uv.example.com`) });
  });

  it("the repository's uv.toml, pyproject [tool.uv] or uv.lock naming another index is refused; the operator's own is accepted", async () => {
    const env = operatorEnv(home());
    const refused: [Record<string, string>, string][] = [
      [{ 'pyproject.toml': '[project]\nname = "x"\n[[tool.uv.index]]\nname = "evil"\nurl = "https://evil.example/simple"\n' }, 'pyproject.toml [tool.uv] [[index]] url'],
      [{ 'uv.toml': 'extra-index-url = ["https://evil.example/simple"]\n' }, 'uv.toml extra-index-url'],
      [{ 'uv.lock': 'version = 1\n\n[[package]]\nname = "six"\nversion = "1.16.0"\nsource = { registry = "https://evil.example/simple" }\n' }, 'uv.lock:6'],
    ];
    for (const [repo, where] of refused) {
      await expect(bind('uv', ['sync', '--frozen'], env, repo), where).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`uv: ${where} names the index https://evil.example/simple`) });
    }
    const lock = '[[package]]\nname = "six"\nsource = { registry = "https://pypi.org/simple" }\nsdist = { url = "https://files.pythonhosted.org/packages/six.tar.gz" }\n';
    expect((await bind('uv', ['sync', '--frozen'], env, { 'uv.lock': lock, 'pyproject.toml': '[tool.uv]\nindex-url = "https://pypi.org/simple/"\n' })).hosts).toEqual(PYPI_HOSTS);
  });
});

describe('poetry', () => {
  it("PyPI, and a project's source only when the operator's Poetry configuration names its URL", async () => {
    const pyproject = '[tool.poetry]\nname = "x"\n[[tool.poetry.source]]\nname = "corp"\nurl = "https://pypi.corp.example.com/simple/"\npriority = "primary"\n';
    expect(await bind('poetry', ['install', '--no-root'], operatorEnv(home()))).toEqual({ hosts: PYPI_HOSTS, env: {} });
    await expect(bind('poetry', ['install'], operatorEnv(home()), { 'pyproject.toml': pyproject })).rejects.toMatchObject({
      code: 'SETUP_REGISTRY_UNSUPPORTED',
      message: expect.stringContaining('poetry: pyproject.toml [[tool.poetry.source]] corp names https://pypi.corp.example.com/simple/'),
    });
    const dir = home({ '.config/pypoetry/config.toml': '[repositories.corp]\nurl = "https://pypi.corp.example.com/simple"\n' });
    expect((await bind('poetry', ['install'], operatorEnv(dir), { 'pyproject.toml': pyproject })).hosts).toEqual(['pypi.org', 'pypi.corp.example.com', 'files.pythonhosted.org']);
    const fromEnv = operatorEnv(home(), { POETRY_REPOSITORIES_CORP_URL: 'https://pypi.corp.example.com/simple/' });
    expect((await bind('poetry', ['install'], fromEnv, { 'pyproject.toml': pyproject })).hosts).toContain('pypi.corp.example.com');
  });
});
