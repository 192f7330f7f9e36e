/**
 * The only packages the CLI and Electron main bundles leave to node_modules: the keychain binding
 * is a native N-API addon (a .node file per platform), which cannot be bundled. electron-builder.yml
 * ships exactly these, with their platform packages.
 */
export const NATIVE_EXTERNALS = ['@napi-rs/keyring'];
