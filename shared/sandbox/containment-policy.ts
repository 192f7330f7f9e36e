import { z } from 'zod';
import { digestOf, type Digest } from '../digest';
import { CitadelError } from '../errors';
import { zodViolations } from '../zod-violations';

/** The containment backends Citadel knows (architecture: plug-ins like the runtime adapters). */
export const SANDBOX_BACKEND_IDS = ['bubblewrap', 'seatbelt'] as const;
export const SandboxBackendIdSchema = z.enum(SANDBOX_BACKEND_IDS);
export type SandboxBackendId = z.infer<typeof SandboxBackendIdSchema>;

const custom = (rule: string, message: string) => ({ message, params: { rule } });

// spawn() refuses NUL bytes in argv; refusing them here turns a crash into a validation error.
const TextSchema = z.string().refine((text) => !text.includes('\0'), custom('nul_byte', 'must not contain NUL'));

/**
 * An absolute, already normalized path other than `/` itself: a root that is `/`, or that a `..`
 * or `.` segment could move, would not say what the sandbox sees.
 */
export const SandboxPathSchema = TextSchema.refine((p) => isNormalAbsolutePath(p), custom('not_normal_absolute', 'must be a normalized absolute path other than "/"'));

const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);
const LoopbackHostSchema = z.enum(['127.0.0.1', '::1', 'localhost']);
const PortSchema = z.int().min(1).max(65535);
// A lower-case DNS name with at least one dot: exact names only, never an IP literal or a port.
const HostNameSchema = z
  .string()
  .regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/)
  .refine((host) => !/^[0-9.]+$/.test(host), custom('ip_literal', 'must be a host name, not an IP address'));

/**
 * One HTTP request a loopback provider serves the runtime: the method and the exact origin-form path
 * (no query, no fragment), compared byte for byte, so no other spelling of a path gets through.
 */
export const HttpRouteSchema = z.strictObject({
  method: z.enum(['GET', 'POST']),
  path: z.string().max(256).regex(/^\/[\x21-\x7e]*$/).refine((p) => !/[?#]/.test(p), custom('not_a_path', 'must be a path without query or fragment')),
});
export type HttpRoute = z.infer<typeof HttpRouteSchema>;

/**
 * Where an executor may connect: nowhere, one loopback provider, or a cloud API's hosts through a
 * host-side filtering proxy. A loopback provider serves its `routes` only (its inference API, never
 * e.g. Ollama's model pull). A rule from before routes existed has none: the bridge reads it as the
 * inference routes every runtime used then (main/sandbox/egress/loopback-routes.ts), never as "all".
 */
/**
 * The wire dialect a provider gateway reads, to check a request and witness its answer
 * (main/sandbox/gateway/dialects/): Anthropic Messages, OpenAI Responses, the Gemini API's
 * generateContent (model in the path), and OpenAI-compatible Chat Completions.
 */
export const GatewayApiSchema = z.enum(['anthropic-messages', 'openai-responses', 'gemini-generate-content', 'openai-chat-completions']);
export type GatewayApi = z.infer<typeof GatewayApiSchema>;

/**
 * Where the gateway sends what it lets through: an http(s) origin plus an optional base path (no
 * trailing slash), e.g. `https://api.anthropic.com`, `http://gpu-box:11434`, `https://corp.example/anthropic`.
 * Never credentials, a query or a fragment: those would be secrets or rewrites the contract cannot show.
 */
export const GatewayUpstreamSchema = z
  .string()
  .max(512)
  .refine((url) => gatewayUpstreamProblem(url) === null, custom('upstream', 'must be an http(s) origin with an optional base path, without credentials, query, fragment or trailing slash'));

/** Why `url` is no gateway upstream, or null. */
export function gatewayUpstreamProblem(url: string): string | null {
  if (!URL.canParse(url)) return 'is not a URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'is not an http(s) URL';
  if (parsed.username !== '' || parsed.password !== '') return 'carries credentials';
  if (parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#')) return 'carries a query or fragment';
  if (url.endsWith('/')) return 'ends with a slash';
  return null;
}

const GatewayModelSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/);

/**
 * How a runtime reaches its gateway inside the sandbox: plain HTTP on 127.0.0.1:`port` (a base URL
 * the runtime honours), or, for a runtime that only speaks TLS to fixed hosts, CONNECT to those
 * `hosts` through the inner proxy, terminated by the gateway with a per-attempt CA only that
 * sandbox trusts.
 */
export const GatewayInsideSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('http'), port: PortSchema }),
  z.strictObject({ kind: z.literal('tls'), hosts: z.array(HostNameSchema).min(1) }),
]);
export type GatewayInside = z.infer<typeof GatewayInsideSchema>;

/**
 * The provider gateway (issue 28): the runtime's only egress, served on the host, which holds the
 * real credential and forwards only `routes` (paths as the runtime sends them; the upstream URL is
 * `upstream` + path) naming one of `models` (null: a profile without a model, any model is
 * forwarded and witnessed) to `upstream`.
 */
export const GatewayRuleSchema = z.strictObject({
  kind: z.literal('gateway'),
  api: GatewayApiSchema,
  inside: GatewayInsideSchema,
  upstream: GatewayUpstreamSchema,
  routes: z.array(HttpRouteSchema).min(1),
  models: z.array(GatewayModelSchema).min(1).nullable(),
});
export type GatewayRule = z.infer<typeof GatewayRuleSchema>;

export const EgressRuleSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('loopback'), host: LoopbackHostSchema, port: PortSchema, routes: z.array(HttpRouteSchema).min(1).optional() }),
  z.strictObject({ kind: z.literal('cloud'), hosts: z.array(HostNameSchema).min(1) }),
  GatewayRuleSchema,
]);
export type EgressRule = z.infer<typeof EgressRuleSchema>;

/**
 * The egress of one launch: a loopback provider or a cloud API is reached only through a host-side
 * bridge listening on a unix socket, which the sandbox sees at the same path.
 */
export const LaunchEgressSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('loopback'), host: LoopbackHostSchema, port: PortSchema, routes: z.array(HttpRouteSchema).min(1).optional(), socket: SandboxPathSchema }),
  z.strictObject({ kind: z.literal('cloud'), hosts: z.array(HostNameSchema).min(1), socket: SandboxPathSchema }),
  GatewayRuleSchema.extend({ socket: SandboxPathSchema }),
]);
export type LaunchEgress = z.infer<typeof LaunchEgressSchema>;

/**
 * What one contained process sees, in host paths: nothing but these roots (plus the backend's own
 * system view), exactly this environment, this egress, started in `cwd`.
 */
export const ContainmentPolicySchema = z
  .strictObject({
    backend: SandboxBackendIdSchema,
    read_only: z.array(SandboxPathSchema),
    read_write: z.array(SandboxPathSchema),
    /** Private, empty scratch directories that vanish with the sandbox. */
    tmpfs: z.array(SandboxPathSchema),
    /** The whole environment: nothing of the launching process is inherited. */
    env: z.record(EnvNameSchema, TextSchema),
    egress: LaunchEgressSchema,
    cwd: SandboxPathSchema,
    /**
     * Single files seen READ-ONLY at another path (an operator's credential file at its place in
     * the runtime home): the file itself is never copied. Each target lies inside a root.
     */
    read_only_files: z.array(z.strictObject({ source: SandboxPathSchema, target: SandboxPathSchema })).optional(),
  })
  .superRefine((policy, ctx) => {
    const roots = [...policy.read_only, ...policy.read_write, ...policy.tmpfs];
    refineDistinct({ read_only: policy.read_only, read_write: policy.read_write, tmpfs: policy.tmpfs }, ctx);
    if (!roots.some((root) => isWithin(policy.cwd, root))) {
      ctx.addIssue({ code: 'custom', path: ['cwd'], ...custom('cwd_outside_roots', 'cwd must lie inside one of the roots') });
    }
    const files = policy.read_only_files ?? [];
    refineDistinct({ read_only_files: files.map((file) => file.target) }, ctx);
    files.forEach((file, index) => {
      // A target that is a root itself, or outside every root, would have no directory to appear in.
      if (!roots.some((root) => file.target !== root && isWithin(file.target, root))) {
        ctx.addIssue({ code: 'custom', path: ['read_only_files', index, 'target'], ...custom('target_outside_roots', 'a file target must lie inside one of the roots') });
      }
    });
  });
export type ContainmentPolicy = z.infer<typeof ContainmentPolicySchema>;

const RootNameSchema = z.string().regex(/^[a-z][a-z0-9-]*$/);

/**
 * A containment policy as a contract binds it: roots are names (e.g. `worktree`, `runtime-home`)
 * that each launch resolves to host paths, and the environment is a list of names whose values
 * (machine paths, credentials) never enter the contract.
 */
export const ContainmentTemplateSchema = z
  .strictObject({
    backend: SandboxBackendIdSchema,
    read_only: z.array(RootNameSchema),
    read_write: z.array(RootNameSchema),
    tmpfs: z.array(RootNameSchema),
    env_names: z.array(EnvNameSchema),
    egress: EgressRuleSchema,
    cwd: RootNameSchema,
  })
  .superRefine((template, ctx) => {
    const names = [...template.read_only, ...template.read_write, ...template.tmpfs];
    refineDistinct({ read_only: template.read_only, read_write: template.read_write, tmpfs: template.tmpfs }, ctx);
    refineDistinct({ env_names: template.env_names }, ctx);
    if (!names.includes(template.cwd)) {
      ctx.addIssue({ code: 'custom', path: ['cwd'], ...custom('unknown_root', 'cwd must name one of the roots') });
    }
  });
export type ContainmentTemplate = z.infer<typeof ContainmentTemplateSchema>;

/** What one launch supplies to turn a template into a policy. */
export interface ContainmentBindings {
  /**
   * Host path(s) of every root the template names: one name may stand for several paths (the
   * toolchain, the git metadata), each seen the way the name is listed.
   */
  readonly roots: Readonly<Record<string, string | readonly string[]>>;
  /** Files to bind read-only at another path (see ContainmentPolicy.read_only_files). */
  readonly readOnlyFiles?: readonly { readonly source: string; readonly target: string }[];
  /** The environment to pick the template's names from; names without a value are left out. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The egress bridge's unix socket; required unless the egress is `none`. */
  readonly egressSocket: string | null;
}

/** A policy from untrusted input, or LAUNCH_SPEC_INVALID naming every rule it breaks. */
export function parseContainmentPolicy(input: unknown): ContainmentPolicy {
  const parsed = ContainmentPolicySchema.safeParse(input);
  if (!parsed.success) {
    throw new CitadelError('LAUNCH_SPEC_INVALID', 'the containment policy is invalid', { violations: zodViolations(parsed.error.issues, [], input) });
  }
  return parsed.data;
}

/** The launch policy for a template: roots resolved to host paths, environment picked by name. */
export function resolveContainment(template: ContainmentTemplate, bindings: ContainmentBindings): ContainmentPolicy {
  const pathsOf = (name: string): readonly string[] => {
    const root = Object.prototype.hasOwnProperty.call(bindings.roots, name) ? bindings.roots[name] : undefined;
    if (root === undefined) throw new CitadelError('LAUNCH_SPEC_INVALID', `containment root "${name}" has no path`, { details: { root: name } });
    return typeof root === 'string' ? [root] : root;
  };
  const pathOf = (name: string): string => {
    const [first, ...rest] = pathsOf(name);
    if (first === undefined || rest.length > 0) {
      throw new CitadelError('LAUNCH_SPEC_INVALID', `containment root "${name}" must be one path to be the cwd`, { details: { root: name } });
    }
    return first;
  };
  const env = Object.fromEntries(
    template.env_names.flatMap((name) => {
      const value = Object.prototype.hasOwnProperty.call(bindings.env, name) ? bindings.env[name] : undefined;
      return value === undefined ? [] : [[name, value]];
    }),
  );
  let egress: unknown = template.egress;
  if (template.egress.kind !== 'none') {
    if (bindings.egressSocket === null) {
      throw new CitadelError('LAUNCH_SPEC_INVALID', `${template.egress.kind} egress needs its bridge socket`, { details: { egress: template.egress.kind } });
    }
    egress = { ...template.egress, socket: bindings.egressSocket };
  }
  return parseContainmentPolicy({
    backend: template.backend,
    read_only: template.read_only.flatMap(pathsOf),
    read_write: template.read_write.flatMap(pathsOf),
    tmpfs: template.tmpfs.flatMap(pathsOf),
    env,
    egress,
    cwd: pathOf(template.cwd),
    ...(bindings.readOnlyFiles === undefined || bindings.readOnlyFiles.length === 0 ? {} : { read_only_files: bindings.readOnlyFiles.map(({ source, target }) => ({ source, target })) }),
  });
}

/**
 * The digest a contract and a receipt bind. Root lists, names, cloud hosts and routes are sets (no backend
 * gives their order a meaning), so they are sorted first: the same policy always has one digest.
 */
export function containmentDigest(template: ContainmentTemplate): Digest {
  const sorted = (items: readonly string[]): string[] => [...items].sort();
  return digestOf({
    ...template,
    read_only: sorted(template.read_only),
    read_write: sorted(template.read_write),
    tmpfs: sorted(template.tmpfs),
    env_names: sorted(template.env_names),
    egress: sortedEgress(template.egress),
  });
}

function sortedEgress(egress: EgressRule): EgressRule {
  if (egress.kind === 'cloud') return { ...egress, hosts: [...egress.hosts].sort() };
  const key = (route: HttpRoute): string => `${route.method} ${route.path}`;
  const sortRoutes = (routes: readonly HttpRoute[]): HttpRoute[] => [...routes].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  if (egress.kind === 'loopback' && egress.routes !== undefined) return { ...egress, routes: sortRoutes(egress.routes) };
  if (egress.kind === 'gateway') {
    const inside = egress.inside.kind === 'tls' ? { ...egress.inside, hosts: [...egress.inside.hosts].sort() } : egress.inside;
    return { ...egress, inside, routes: sortRoutes(egress.routes), models: egress.models === null ? null : [...egress.models].sort() };
  }
  return egress;
}

/** True when `inner` is `outer` or lies below it (both normalized absolute paths). */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(`${outer}/`);
}

function isNormalAbsolutePath(p: string): boolean {
  if (!p.startsWith('/') || p === '/') return false;
  return p
    .slice(1)
    .split('/')
    .every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** One root (or name) in one place: the same one listed twice, or as both read-only and read-write, is ambiguous. */
function refineDistinct(lists: Readonly<Record<string, readonly string[]>>, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const [key, items] of Object.entries(lists)) {
    items.forEach((item, index) => {
      if (seen.has(item)) ctx.addIssue({ code: 'custom', path: [key, index], ...custom('duplicate', `"${item}" is listed more than once`) });
      seen.add(item);
    });
  }
}
