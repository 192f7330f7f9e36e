import type { RuntimeActivity } from '../../shared/fork/events';
import { scanForSecrets } from '../publish/redaction/secret-scan';

// The event's bound is 240; a line of the Fork view is shorter.
const MAX_SUMMARY = 200;

/**
 * Credentials on a command line that the publishing scanner lets pass (it wants a vendor shape or
 * high entropy): `NAME=value` or `--name=value` where the name says pass/secret/token/key, a
 * MySQL-family client's `-p<password>` (hasClientPassword below), `sshpass -p`, `-u`/`--user
 * user:password`, and AWS access key ids, the documentation's example one included (secretlint
 * skips it).
 */
const COMMAND_LINE_CREDENTIALS = [
  // Read from the `=` backwards, so a long name is read once, not once per `key` in it.
  /=(?<=(?:pass|secret|token|key)[\w-]*=)[^\s"'&;|]/i,
  /\bsshpass\s+-p\s*\S/,
  /(?<![\w-])(?:-u|--user)(?:\s+|=)?[^\s:'"-][^\s:]*:\S/,
  /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/,
];

/**
 * What of a runtime's activity may be streamed: each summary is scanned whole (before any cut,
 * so a key at the end of a long command cannot be cut out of its rule's reach) by the scanner
 * public artifacts pass (secret-scan.ts) and the command-line rules above; one that looks like it
 * holds a secret is replaced by its kind. Local paths are the operator's own: that rule alone is
 * not applied. Then each is cut to MAX_SUMMARY.
 */
export async function streamableActivities(activities: readonly RuntimeActivity[]): Promise<RuntimeActivity[]> {
  const hidden = await secretLike(activities.map(({ summary }) => summary));
  return activities.map(({ kind, summary }, i) => {
    if (hidden[i] === true) return { kind, summary: `${kind.replaceAll('_', ' ')} (its text is hidden: it looks like it holds a secret)` };
    return { kind, summary: summary.length <= MAX_SUMMARY ? summary : `${summary.slice(0, MAX_SUMMARY - 1)}…` };
  });
}

/**
 * Which of `texts` look like they hold a secret, by the rules above (the publishing scanner but
 * its local-path rule, and the command-line rules): one scan for them all, each text judged whole.
 */
export async function secretLike(texts: readonly string[]): Promise<boolean[]> {
  const flagged = texts.map((text) => COMMAND_LINE_CREDENTIALS.some((pattern) => pattern.test(text)) || hasClientPassword(text));
  for (const hit of await scanForSecrets(texts)) {
    const index = /^\$\[(\d+)\]$/.exec(hit.path)?.[1];
    if (hit.rule !== 'citadel/absolute-path' && index !== undefined) flagged[Number(index)] = true;
  }
  return flagged;
}

const CLIENT = /\b(?:mysql[a-z]*|mariadb[a-z-]*)\b/g;
const PASSWORD_OPTION = /[^|;&]*\s-p[^\s-]/y;
const COMMAND_END = /[|;&]/g;

/**
 * A MySQL-family client's `-p<password>` later in its command (up to a `|`, `;` or `&`). Only the
 * first client named in a command is followed: one regex for the rule read the rest of the
 * command once per client name, quadratic in a line that repeats one.
 */
function hasClientPassword(text: string): boolean {
  CLIENT.lastIndex = 0;
  for (let client = CLIENT.exec(text); client !== null; client = CLIENT.exec(text)) {
    PASSWORD_OPTION.lastIndex = CLIENT.lastIndex;
    if (PASSWORD_OPTION.test(text)) return true;
    COMMAND_END.lastIndex = CLIENT.lastIndex;
    if (COMMAND_END.exec(text) === null) return false;
    CLIENT.lastIndex = COMMAND_END.lastIndex;
  }
  return false;
}
