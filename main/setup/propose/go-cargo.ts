import { fetchStep, type EcosystemReading } from './ecosystem';
import type { RepositoryFiles } from './repository-files';

/** A Go module at the repository's top: its modules downloaded, then `go test ./...`. */
export function readGoModule(files: RepositoryFiles): EcosystemReading | null {
  if (!files.has('go.mod')) return null;
  const download = fetchStep('go-mod-download', ['go', 'mod', 'download'], files.has('go.sum') ? 'go.mod and go.sum' : 'go.mod');
  const tests = files.tracked.filter((file) => file.endsWith('_test.go')).length;
  return {
    ecosystem: 'go',
    setup: [download.step],
    verifier: { command: 'go', args: ['test', './...'], evidence: `go.mod (${tests} _test.go file(s))` },
    lockfiles: files.has('go.sum') ? ['go.sum'] : [],
    findings: [download.finding],
  };
}

/** A Cargo package or workspace at the repository's top: its crates fetched (exactly the lockfile's with one), then `cargo test`. */
export function readCargoPackage(files: RepositoryFiles): EcosystemReading | null {
  if (!files.has('Cargo.toml')) return null;
  const locked = files.has('Cargo.lock');
  const fetch = locked ? fetchStep('cargo-fetch', ['cargo', 'fetch', '--locked'], 'Cargo.lock') : fetchStep('cargo-fetch', ['cargo', 'fetch'], 'Cargo.toml (no Cargo.lock)');
  return {
    ecosystem: 'cargo',
    setup: [fetch.step],
    verifier: { command: 'cargo', args: ['test'], evidence: 'Cargo.toml' },
    lockfiles: locked ? ['Cargo.lock'] : [],
    findings: [fetch.finding],
  };
}
