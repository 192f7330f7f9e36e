/**
 * A unix socket path must fit sun_path (108 bytes on Linux, 104 on macOS, with its NUL). Node 20 cuts a
 * longer path short without an error, which would listen and connect somewhere else: such paths are refused.
 */
export const MAX_SOCKET_PATH_BYTES = 103;

/** Why a path cannot name the bridge socket, or null when it can. */
export function socketPathProblem(socketPath: string): string | null {
  if (!socketPath.startsWith('/')) return 'the bridge socket needs an absolute path';
  if (socketPath.includes('\0')) return 'the bridge socket path must not contain NUL';
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > MAX_SOCKET_PATH_BYTES) return `the bridge socket path is ${bytes} bytes, more than the ${MAX_SOCKET_PATH_BYTES} a unix socket allows`;
  return null;
}
