import '@testing-library/jest-dom/vitest';
// The client loads the contract's schemas on their own (renderer/src/lib/client.ts); in the app
// that load is warm once the first page has drawn. Loaded here once, so a view's first call does
// not wait for this process to transform the whole contract.
import '../../renderer/src/lib/contract-schemas';
