import { windowTransport } from './lib/transport';

/**
 * This window's one transport, made when main.ts's first import runs: under the web host that sends
 * the fork list's first read before the rest of the app's script is evaluated (lib/transport.ts).
 */
export const thisWindowTransport = windowTransport(window);
