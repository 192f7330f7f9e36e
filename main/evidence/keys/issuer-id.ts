import os from 'node:os';
import { CitadelError } from '../../../shared/errors';
import { IssuerIdSchema } from '../../../shared/fork/ids';

const DEFAULT_PREFIX = 'local';
const MAX_ISSUER_ID_LENGTH = 64;

/** Checks an issuer id before it names a keychain account or a key file. */
export function parseIssuerId(value: string): string {
  const parsed = IssuerIdSchema.safeParse(value);
  if (!parsed.success) {
    const message = `issuer id ${JSON.stringify(value)} is not 1 to 64 of a-z 0-9 . _ - starting with a letter or digit`;
    throw new CitadelError('ISSUER_ID_INVALID', message, { details: { issuer_id: value } });
  }
  return parsed.data;
}

/**
 * The issuer id used when the operator names none: `local-<login name>`, lowercased, with every
 * character outside the issuer grammar replaced by `-`, and `local` when no login name is known.
 * One key per operator account on a machine; the fork binds its public key, not this name.
 */
export function defaultIssuerId(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const login = (env.USER || env.LOGNAME || env.USERNAME || osLoginName())
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, '-')
    .slice(0, MAX_ISSUER_ID_LENGTH - DEFAULT_PREFIX.length - 1);
  return login === '' ? DEFAULT_PREFIX : `${DEFAULT_PREFIX}-${login}`;
}

function osLoginName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return ''; // a uid with no passwd entry (some containers)
  }
}
