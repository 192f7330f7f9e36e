import { isVersionAtLeast, MIN_OLLAMA_VERSION, type LocalProviderReadiness } from '../../../shared/runtime/readiness';
import type { HttpRoute } from '../../../shared/sandbox/containment-policy';

const PROBE_TIMEOUT_MS = 1500;
const MAX_BODY_BYTES = 1024 * 1024;

export interface ProviderEndpoints {
  readonly ollama: string;
  readonly lmstudio: string;
}

/** Default local endpoints, as Codex uses them (recordings: localhost:11434 and :1234). */
export const DEFAULT_PROVIDER_ENDPOINTS: ProviderEndpoints = {
  ollama: 'http://127.0.0.1:11434',
  lmstudio: 'http://127.0.0.1:1234',
};

/**
 * Exactly what Codex 0.169.0 asks of each local provider (recordings/codex: a_text, b1_shell, c1_err500,
 * f1/f2, g1/g2_lmstudio_*): its discovery GETs and the Responses API, paths relative to the endpoint.
 * A contained run gets nothing else: not Ollama's `/api/pull` (Codex pulls a missing model, f5: a
 * download from any registry the executor names), `/api/push`, `/api/create`, `/api/copy`,
 * `/api/delete`, nor LM Studio's model download and load endpoints. Pull models before the fork.
 */
export const LOCAL_PROVIDER_ROUTES: Readonly<Record<keyof ProviderEndpoints, readonly HttpRoute[]>> = {
  ollama: [
    { method: 'GET', path: '/v1/models' },
    { method: 'GET', path: '/api/version' },
    { method: 'GET', path: '/api/tags' },
    { method: 'POST', path: '/v1/responses' },
  ],
  lmstudio: [
    { method: 'GET', path: '/v1/models' },
    { method: 'POST', path: '/v1/responses' },
  ],
};

/**
 * Where Codex would look: CODEX_OSS_BASE_URL (e.g. `http://127.0.0.1:18435/v1`) or CODEX_OSS_PORT
 * redirect both local providers, as they do for Codex itself; otherwise the default ports.
 */
export function providerEndpointsFrom(env: Readonly<Record<string, string | undefined>>): ProviderEndpoints {
  const base = env.CODEX_OSS_BASE_URL?.replace(/\/+$/, '').replace(/\/v1$/, '');
  if (base) return { ollama: base, lmstudio: base };
  const port = env.CODEX_OSS_PORT;
  if (port && /^\d{1,5}$/.test(port)) return { ollama: `http://127.0.0.1:${port}`, lmstudio: `http://127.0.0.1:${port}` };
  return DEFAULT_PROVIDER_ENDPOINTS;
}

/** Asks Ollama (`/api/version`, `/api/tags`) and LM Studio (`/v1/models`) what they serve. Never hangs. */
export async function probeLocalProviders(endpoints: ProviderEndpoints = DEFAULT_PROVIDER_ENDPOINTS): Promise<LocalProviderReadiness[]> {
  return Promise.all([probeOllama(endpoints.ollama), probeLmStudio(endpoints.lmstudio)]);
}

async function probeOllama(baseUrl: string): Promise<LocalProviderReadiness> {
  const version = await getJson(`${baseUrl}/api/version`);
  if (!version.ok) return unreachable('ollama', baseUrl, version.problem);
  const versionText = typeof (version.body as { version?: unknown }).version === 'string' ? (version.body as { version: string }).version : null;
  const tags = await getJson(`${baseUrl}/api/tags`);
  const models = tags.ok ? modelNames((tags.body as { models?: unknown }).models, 'name') : [];
  const supported = versionText === null ? null : isVersionAtLeast(versionText, MIN_OLLAMA_VERSION);
  return {
    provider: 'ollama',
    base_url: baseUrl,
    reachable: true,
    version: versionText,
    version_supported: supported,
    models,
    problem: supported === false ? `Ollama ${versionText} is older than ${MIN_OLLAMA_VERSION}, which Codex requires` : tags.ok ? null : tags.problem,
  };
}

async function probeLmStudio(baseUrl: string): Promise<LocalProviderReadiness> {
  const listed = await getJson(`${baseUrl}/v1/models`);
  if (!listed.ok) return unreachable('lmstudio', baseUrl, listed.problem);
  return {
    provider: 'lmstudio',
    base_url: baseUrl,
    reachable: true,
    version: null,
    version_supported: null,
    models: modelNames((listed.body as { data?: unknown }).data, 'id'),
    problem: null,
  };
}

function unreachable(provider: 'ollama' | 'lmstudio', baseUrl: string, problem: string): LocalProviderReadiness {
  return { provider, base_url: baseUrl, reachable: false, version: null, version_supported: null, models: [], problem };
}

function modelNames(list: unknown, key: 'name' | 'id'): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    const value = (item as Record<string, unknown> | null)?.[key];
    return typeof value === 'string' ? [value] : [];
  });
}

async function getJson(url: string): Promise<{ ok: true; body: unknown } | { ok: false; problem: string }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: 'error' });
    if (!response.ok) return { ok: false, problem: `HTTP ${response.status} from ${new URL(url).pathname}` };
    const text = await response.text();
    if (text.length > MAX_BODY_BYTES) return { ok: false, problem: 'response too large' };
    return { ok: true, body: JSON.parse(text) as unknown };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    if (error instanceof DOMException && error.name === 'TimeoutError') return { ok: false, problem: 'no answer within 1.5 s' };
    return { ok: false, problem: cause === 'ECONNREFUSED' ? 'not running (connection refused)' : 'not reachable' };
  }
}
