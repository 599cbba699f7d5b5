/**
 * E-mail addresses: lowercased, sub-addresses removed (`ada+crm@x.com` is `ada@x.com`; Gmail
 * also ignores dots), split into local part and domain, with free-mail providers
 * (`data/free-mail-domains.txt`: their domain says nothing about an employer) and role mailboxes
 * (`data/role-mailboxes.txt`: `info@`, `sales@`: their local part says nothing about a person)
 * recognised.
 */
import { readDataFile } from './data.ts';
import { normalizeDomain } from './domain.ts';

const FREE_MAIL: ReadonlySet<string> = new Set(readDataFile('free-mail-domains.txt').map(([d]) => d));
const ROLE_MAILBOXES: ReadonlySet<string> = new Set(readDataFile('role-mailboxes.txt').map(([l]) => l));
/** Providers that deliver `a.d.a@` to `ada@`. */
const DOTLESS = new Set(['gmail.com', 'googlemail.com']);

/** A normalised e-mail address. */
export interface NormalizedEmail {
  /** The whole address, lowercase, without a sub-address (`+tag`). */
  readonly address: string;
  readonly local: string;
  readonly domain: string;
  /** Registrable domain of `domain`. */
  readonly registrable: string;
  /** True when the domain belongs to a consumer mail provider. */
  readonly freeMail: boolean;
  /** True when the local part names a role (`info`, `sales`, `support`), not a person. */
  readonly role: boolean;
}

/** True when `domain` (lowercase) is a free-mail provider's domain. */
export function isFreeMailDomain(domain: string): boolean {
  return FREE_MAIL.has(domain);
}

/**
 * True when `local` (a lowercase local part) is a role mailbox's: `info`, `hr`, `sales-team`,
 * `info2`. A two-letter role word written with other characters (`a.r`, `it25`, `ir3`) reads
 * as a person's initials, not as the role: only the bare `ar`, `it`, `hr` are roles.
 */
export function isRoleMailbox(local: string): boolean {
  if (ROLE_MAILBOXES.has(local)) return true;
  const letters = local.replace(/[^a-z]/g, '');
  return letters.length > 2 && ROLE_MAILBOXES.has(letters);
}

/** Normalises an e-mail address; `undefined` when it has no `local@domain` shape. */
export function normalizeEmail(email: string): NormalizedEmail | undefined {
  const lower = email
    .trim()
    .toLowerCase()
    .replace(/^mailto:/, '');
  const at = lower.lastIndexOf('@');
  if (at <= 0 || at === lower.length - 1 || /\s/.test(lower)) return undefined;
  let domain = lower.slice(at + 1);
  let local = lower.slice(0, at);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (DOTLESS.has(domain)) {
    local = local.replaceAll('.', '');
    domain = 'gmail.com';
  }
  const address = `${local}@${domain}`;
  const registrable = normalizeDomain(domain)?.registrable ?? domain;
  return {
    address,
    local,
    domain,
    registrable,
    freeMail: FREE_MAIL.has(domain) || FREE_MAIL.has(registrable),
    role: isRoleMailbox(local),
  };
}
