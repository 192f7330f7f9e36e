export const NATIVE_EXTERNALS: readonly string[];
