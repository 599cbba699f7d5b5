import fs from 'node:fs';
import path from 'node:path';
import type { TokenService } from '../accounts/index.ts';

/** File under the data directory holding the demo token's secret (owner-readable only). */
export const DEMO_TOKEN_FILE = 'demo-token';

/**
 * Returns the demo token of this data directory, creating it (unlimited credits) the first time
 * or when its file points at a token the store no longer has.
 */
export async function ensureDemoToken(dataDir: string, tokens: TokenService): Promise<string> {
  const file = path.join(dataDir, DEMO_TOKEN_FILE);
  if (fs.existsSync(file)) {
    const secret = fs.readFileSync(file, 'utf8').trim();
    if (secret !== '' && (await tokens.find(secret))) return secret;
  }
  const { secret } = await tokens.create({ credits: null, label: 'demo' });
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
