/**
 * E-mail addresses: lowercased, split into local part and domain, with free-mail providers
 * recognised (their domain says nothing about an employer).
 */
import { normalizeDomain } from './domain.ts';

// Large consumer mail providers: a shared domain, never evidence of an organization.
const FREE_MAIL: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'yahoo.co.uk',
  'yahoo.fr',
  'yahoo.de',
  'ymail.com',
  'hotmail.com',
  'hotmail.co.uk',
  'hotmail.fr',
  'outlook.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'protonmail.com',
  'proton.me',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.com',
  'mail.ru',
  'yandex.ru',
  'yandex.com',
  'qq.com',
  '163.com',
  '126.com',
  'sina.com',
  'naver.com',
  'hanmail.net',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'libero.it',
  'btinternet.com',
  'comcast.net',
  'verizon.net',
  'att.net',
  'zoho.com',
  'fastmail.com',
  'tutanota.com',
  'rediffmail.com',
  'bigpond.com',
  't-online.de',
]);

/** A normalised e-mail address. */
export interface NormalizedEmail {
  /** The whole address, lowercase. */
  readonly address: string;
  readonly local: string;
  readonly domain: string;
  /** Registrable domain of `domain`. */
  readonly registrable: string;
  /** True when the domain belongs to a consumer mail provider. */
  readonly freeMail: boolean;
}

/** True when `domain` (lowercase) is a free-mail provider's domain. */
export function isFreeMailDomain(domain: string): boolean {
  return FREE_MAIL.has(domain);
}

/** Normalises an e-mail address; `undefined` when it has no `local@domain` shape. */
export function normalizeEmail(email: string): NormalizedEmail | undefined {
  const address = email
    .trim()
    .toLowerCase()
    .replace(/^mailto:/, '');
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1 || /\s/.test(address)) return undefined;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const registrable = normalizeDomain(domain)?.registrable ?? domain;
  return {
    address,
    local,
    domain,
    registrable,
    freeMail: FREE_MAIL.has(domain) || FREE_MAIL.has(registrable),
  };
}
