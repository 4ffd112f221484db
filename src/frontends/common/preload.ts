/**
 * The servers load their turn runtime in the background once the handshake is answered, so a
 * host's first call does not wait for it. `TSCODEX_PRELOAD=0` turns that off: idle memory stays
 * at the handshake's (the first call pays for the load instead), and the start-up tests can
 * check what the handshake itself loads without racing the background load.
 */
export function preloadEnabled(): boolean {
  return process.env.TSCODEX_PRELOAD !== "0";
}
