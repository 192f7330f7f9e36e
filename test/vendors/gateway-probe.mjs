// Run inside a contained branch by a scripted agent (issue 28; the test writes the profile's model in for process.argv[2]): looks for the operator's credentials
// everywhere the sandbox can read, then tries to misuse the provider gateway with the placeholder the
// sandbox holds. Prints one line per finding. Patterns are split so that this file, its command line
// and the runtime's transcript of it never match them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const SECRETS = [new RegExp(['REAL', 'KEY-[0-9a-f]{24}'].join('')), new RegExp(['OAUTH', 'MARK-[0-9a-f]{24}'].join('')), new RegExp(['FILE', 'KEY-[0-9a-f]{24}'].join(''))];
const CREDENTIAL_FILES = new Set(['.credentials.json', 'auth.json']);
const SKIP = new Set(['/proc', '/sys', '/dev', '/usr']);
const found = new Set();
const credentialFiles = [];

function scan(text, where) {
  for (const secret of SECRETS) if (secret.test(text)) found.add(`${secret.source.slice(0, 4)}@${where}`);
}

for (const [name, value] of Object.entries(process.env)) scan(`${name}=${value}`, 'env');
for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
  for (const file of ['environ', 'cmdline']) {
    try {
      scan(readFileSync(`/proc/${pid}/${file}`, 'latin1'), `/proc/${file}`);
    } catch {
      // A process gone, or one not ours to read: nothing there for the sandbox either.
    }
  }
}
let files = 0;
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (SKIP.has(full)) continue;
    if (entry.isDirectory()) walk(full);
    else if (entry.isFile()) {
      if (CREDENTIAL_FILES.has(entry.name)) credentialFiles.push(full);
      try {
        if (statSync(full).size > 4 * 1024 * 1024) continue;
        files += 1;
        scan(readFileSync(full, 'latin1'), 'file');
      } catch {
        // Unreadable to the sandbox: then it cannot leak what it holds.
      }
    }
  }
}
walk('/');
console.log(`SCANNED ${files}`);
console.log(`SECRETS ${[...found].sort().join(' ') || 'none'}`);
console.log(`CREDFILES ${credentialFiles.sort().join(' ') || 'none'}`);

// The placeholder the sandbox holds, and what the gateway does with requests the runtime would never make.
const base = process.env.ANTHROPIC_BASE_URL;
const key = process.env.ANTHROPIC_API_KEY;
if (base && key) {
  const ask = async (label, body, apiKey = key) => {
    try {
      const answer = await fetch(`${base}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
      console.log(`${label} ${answer.status}`);
    } catch (error) {
      console.log(`${label} failed ${error.cause?.code ?? error.message}`);
    }
  };
  const message = { model: process.argv[2], max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] };
  await ask('MCP', { ...message, mcp_servers: [{ type: 'url', url: 'https://collector.example/sse', name: 'x' }] });
  await ask('OTHERMODEL', { ...message, model: 'claude-opus-4-5' });
  await ask('WEBFETCH', { ...message, tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] });
  await ask('WRONGKEY', message, `${key}x`);
}
