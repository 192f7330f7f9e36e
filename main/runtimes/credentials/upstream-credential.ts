/**
 * What the provider gateway asks for the real credential at each upstream request (plan: gateway core).
 * `headers()` throws a CREDENTIAL_REFRESH_FAILED CitadelError when no usable credential can be had;
 * the gateway refuses the request as `credential_unavailable`. `refreshAfterUnauthorized()` renews
 * after an upstream 401 and says whether a new token is to be tried.
 */
export interface UpstreamCredential {
  headers(): Promise<Record<string, string>>;
  refreshAfterUnauthorized?(): Promise<boolean>;
}
