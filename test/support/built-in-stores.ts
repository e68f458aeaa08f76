/**
 * The module that registers chatstate's own stores (`chatstate/stores` in the package), as the
 * conformance kit's child processes import it: a `file:` URL of the source.
 */
export const BUILT_IN_STORES = new URL('../../src/stores/open-store.ts', import.meta.url).href;
