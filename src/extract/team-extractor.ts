/**
 * Team pages ("Meet the newsroom", "Our people"): several people, each in a card of its own
 * (name, role, contacts, portrait). Each card becomes a `person` object; the page's heading is
 * never taken for a person's name (issue 24 §5).
 */
import type { Element } from 'domhandler';
import { collectContactFacts } from './contact-facts.ts';
import { findAllElements, findFirst, inlineText, parseHtml, resolveUrl } from './html-document.ts';
import type { PageContext } from './page-context.ts';
import { nameDetailOf, type PersonFields } from './person-extractor.ts';
import { PERSON_TYPES } from './schema-types.ts';

/** Class or id names of a person's card on a team page. */
const CARD =
  /(^|[\s_-])(team|member|staff|person|people|employee|bio|profile|author)(s)?([-_](card|item|tile|box|entry|block))?($|[\s_-])/i;
/** Class names of a role under a name. */
const ROLE =
  /(^|[\s_-])(role|title|position|job|jobtitle|job-title|function|poste|funktion|cargo|ruolo|functie)($|[\s_-])/i;
/** Cards needed for a team page. */
const MIN_MEMBERS = 2;

function names(el: Element): string {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
}

/** A person's name: two to five words, letters, no digit, not a sentence. */
function looksLikeName(text: string): boolean {
  return /^[\p{Lu}][\p{L}'’.-]*(\s+[\p{L}'’.-]+){1,4}$/u.test(text) && text.length <= 60;
}

/** The cards of people on the page (outermost matching elements holding one name each). */
function memberCards(context: PageContext): Element[] {
  const cards = findAllElements(
    context.page.document,
    (el) => el.name !== 'body' && el.name !== 'html' && CARD.test(names(el)) && cardName(el) !== undefined,
  );
  // Keep the innermost cards: a "team" section holding "team-member" cards is not a card.
  return cards.filter((card) => !cards.some((other) => other !== card && isAncestor(card, other)));
}

function isAncestor(ancestor: Element, node: Element): boolean {
  for (let current = node.parent; current; current = current.parent) if (current === ancestor) return true;
  return false;
}

function cardName(card: Element): string | undefined {
  const heading = findFirst(
    card,
    (el) => /^h[2-6]$/.test(el.name) || el.name === 'strong' || /(^|[\s_-])name($|[\s_-])/i.test(names(el)),
  );
  const text = heading ? inlineText(heading) : '';
  return looksLikeName(text) ? text : undefined;
}

/** Whether the page is a team page: several people's cards and no single Person declared. */
export function isTeamPage(context: PageContext): boolean {
  if (
    context.data.nodes.filter((node) => node.topLevel && node['@type'].some((t) => PERSON_TYPES.has(t)))
      .length === 1
  ) {
    return false;
  }
  return memberCards(context).length >= MIN_MEMBERS;
}

/** One `person` object per card of a team page; empty when it is not one. */
export function extractTeam(context: PageContext): PersonFields[] {
  const cards = memberCards(context);
  if (cards.length < MIN_MEMBERS) return [];
  return cards.map((card) => {
    const name = cardName(card)!;
    const fields: PersonFields = { name };
    const detail = nameDetailOf(name, {});
    if (detail) fields.nameDetail = detail;
    const role = findFirst(card, (el) => ROLE.test(names(el)));
    const title = role ? inlineText(role) : undefined;
    if (title && title.length <= 100) fields.employments = [{ title, isCurrent: true }];
    // The card's own contacts, read as a page of its own (no site chrome inside a card).
    const facts = collectContactFacts(parseHtml(`<body>${cardHtml(card)}</body>`, context.page.url));
    if (facts.phoneNumbers.length > 0) fields.phoneNumbers = [...facts.phoneNumbers];
    if (facts.emailAddresses.length > 0) fields.emailAddresses = [...facts.emailAddresses];
    const img = findFirst(card, (el) => el.name === 'img');
    const image = img ? resolveUrl(img.attribs.src, context.baseUrl) : undefined;
    if (image && !image.startsWith('data:')) {
      fields.image = image;
      fields.images = [{ url: image, primary: true }];
    }
    return fields;
  });
}

function cardHtml(card: Element): string {
  // Links and text are all collectContactFacts reads; serialising keeps this module small.
  return findAllElements(card, (el) => el.name === 'a')
    .map((a) => `<a href="${(a.attribs.href ?? '').replace(/"/g, '&quot;')}">${inlineText(a)}</a>`)
    .concat(`<p>${inlineText(card).replace(/[<&]/g, ' ')}</p>`)
    .join('');
}
