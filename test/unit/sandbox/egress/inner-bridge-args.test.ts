import { describe, expect, it } from 'vitest';
import { innerBridgeArgv, parseInnerBridgeArgv } from '../../../../main/sandbox/egress/inner-bridge-args';
import { MAX_SOCKET_PATH_BYTES } from '../../../../main/sandbox/egress/socket-path';

const BRIDGE = { listenPort: 3128, socketPath: '/run/citadel/egress.sock', command: '/usr/bin/claude', args: ['-p', '--', '--output-format'] };

describe('inner bridge argv', () => {
  it('round-trips, keeping every argument after the command as it is (even a second --)', () => {
    const argv = innerBridgeArgv(BRIDGE);
    expect(argv).toEqual(['--listen', '3128', '--socket', '/run/citadel/egress.sock', '--', '/usr/bin/claude', '-p', '--', '--output-format']);
    expect(parseInnerBridgeArgv(argv)).toEqual({ ok: true, value: BRIDGE });
  });

  it('refuses a missing command, a bad port, a relative or overlong socket path, and any other order', () => {
    const bad: string[][] = [
      ['--listen', '3128', '--socket', '/s.sock', '--'],
      ['--listen', '0', '--socket', '/s.sock', '--', 'x'],
      ['--listen', '65536', '--socket', '/s.sock', '--', 'x'],
      ['--listen', '3128x', '--socket', '/s.sock', '--', 'x'],
      ['--listen', '3128', '--socket', 's.sock', '--', 'x'],
      ['--listen', '3128', '--socket', `/${'s'.repeat(MAX_SOCKET_PATH_BYTES)}`, '--', 'x'],
      ['--socket', '/s.sock', '--listen', '3128', '--', 'x'],
      ['--listen', '3128', '--socket', '/s.sock', 'x'],
      [],
    ];
    for (const argv of bad) expect(parseInnerBridgeArgv(argv).ok, argv.join(' ')).toBe(false);
    expect(parseInnerBridgeArgv(['--listen', '3128', '--socket', `/${'s'.repeat(MAX_SOCKET_PATH_BYTES - 1)}`, '--', 'x']).ok).toBe(true);
  });
});
