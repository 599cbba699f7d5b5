/**
 * Applies compiled Custom API rules to a parsed page. Pure: a DOM in, plain data out (only
 * `removePrefiltered` mutates the DOM, by design, before anything else reads it).
 *
 * Semantics (docs/api.md#rules, #rule-sets; the parts marked *ours* are not specified there):
 * - A `value` rule sets its field to the value (after `replace` filters for strings).
 * - A `selector` rule reads every element it matches: its text (block-aware, whitespace
 *   collapsed), or with an `attribute` filter that attribute — `href`, `src` and other URL
 *   attributes resolved to absolute URLs. `exclude` filters leave out matching descendants;
 *   `replace` filters then rewrite each value in order (regex, `$1` back-references, every
 *   occurrence). Empty values are dropped. *Ours:* one value gives a string, several an array
 *   of strings in document order (issue 24 §10), none leaves the field unset (so a built-in
 *   value stays).
 * - A rule named like a built-in field keeps that field's shape: `tags` gives `[{label}]`.
 * - A rule with nested `rules` gives an array with one object per element its selector
 *   matches; nested selectors run inside that element (the element itself included, as in
 *   jsoup). An element yielding no field gives no object; no element gives `[]`.
 */
import type { AnyNode, Document, Element } from 'domhandler';
import { isTag } from 'domhandler';
import { type ElementIndex, elementIndex, removeElements } from './element-index.ts';
import { resolveUrl, serializeHtml, textOf } from './html-document.ts';
import type { CompiledSelector } from './jsoup-selector.ts';
import type { CompiledRule, CompiledRuleset } from './ruleset.ts';

/** Attributes whose values are URLs, returned absolute (docs/api.md#rules). */
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'data-src',
  'data-href',
  'poster',
  'action',
  'cite',
  'data-original',
]);

/** Removes every element matched by the `prefilters` of `rulesets` from the document. */
export function removePrefiltered(document: Document, rulesets: readonly CompiledRuleset[]): number {
  let removed = 0;
  for (const ruleset of rulesets) {
    for (const prefilter of ruleset.prefilters) {
      // Matched before any is removed: a descendant of a matched element counts too.
      const matched = select(prefilter, elementIndex(document));
      removeElements(document, matched);
      removed += matched.length;
    }
  }
  return removed;
}

function insideTemplate(el: Element): boolean {
  for (let node = el.parent; node; node = node.parent)
    if (isTag(node) && node.name === 'template') return true;
  return false;
}

function excludedNodes(el: Element, exclude: readonly CompiledSelector[]): Set<AnyNode> | undefined {
  if (exclude.length === 0) return undefined;
  const set = new Set<AnyNode>();
  for (const selector of exclude) for (const found of selector.selectAll(el)) set.add(found);
  return set;
}

function applyReplacements(value: string, rule: CompiledRule): string {
  let result = value;
  for (const { pattern, replacement } of rule.replacements) result = pattern.replaceAll(result, replacement);
  return result;
}

function elementValue(el: Element, rule: CompiledRule, baseUrl: string): string {
  const exclude = excludedNodes(el, rule.exclude);
  let raw: string;
  if (rule.attribute !== undefined) {
    const attribute = el.attribs[rule.attribute];
    if (attribute === undefined) return '';
    raw = URL_ATTRIBUTES.has(rule.attribute)
      ? (resolveUrl(attribute, baseUrl) ?? attribute.trim())
      : attribute.trim();
  } else if (rule.name === 'html') {
    // The reference APIs' `html` fields hold markup, not text.
    raw = serializeHtml(el, { exclude });
  } else {
    raw = textOf(el, { exclude });
  }
  return applyReplacements(raw, rule).trim();
}

/**
 * Elements `selector` matches in an indexed document, testing only elements of its subject tag
 * when it has one. Like css-select's own search (and a browser's), it skips `<template>`
 * contents, which the index lists: inert markup is not page content, and a rule then finds the
 * same elements whichever way it is applied (alone, with other rules, or as a prefilter).
 */
function select(selector: CompiledSelector, index: ElementIndex): Element[] {
  const candidates = selector.subjectTag ? index.withTag(selector.subjectTag) : index.elements;
  const matched = candidates.filter((el) => selector.matches(el));
  return index.withTag('template').length > 0 ? matched.filter((el) => !insideTemplate(el)) : matched;
}

function matchesIn(selector: CompiledSelector, scope: Document | Element, indexed: boolean): Element[] {
  if (scope.type === 'root') {
    // Both searches skip <template> contents, so they find the same elements.
    return indexed ? select(selector, elementIndex(scope)) : selector.selectAll(scope);
  }
  const found = selector.selectAll(scope);
  // jsoup's Element.select() includes the element itself when it matches.
  return selector.matches(scope) ? [scope, ...found] : found;
}

function applyRule(
  rule: CompiledRule,
  scope: Document | Element,
  baseUrl: string,
  indexed: boolean,
): unknown {
  if (rule.value !== undefined) {
    return typeof rule.value === 'string' ? applyReplacements(rule.value, rule) : rule.value;
  }
  if (!rule.selector) return undefined;
  const elements = matchesIn(rule.selector, scope, indexed);
  if (rule.children) {
    const items: Record<string, unknown>[] = [];
    for (const el of elements) {
      const item = applyRules(rule.children, el, baseUrl);
      if (Object.keys(item).length > 0) items.push(item);
    }
    return items;
  }
  const found = elements.map((el) => elementValue(el, rule, baseUrl)).filter((v) => v !== '');
  if (found.length === 0) return undefined;
  return found.length === 1 ? found[0] : found;
}

/**
 * Built-in fields whose values are objects: a rule overriding one gives values of the same
 * shape, so a client reading `tags[0].label` keeps working (issue 24 §10).
 */
const BUILT_IN_SHAPES: Readonly<Record<string, (value: string) => Record<string, string>>> = {
  tags: (label) => ({ label }),
  images: (url) => ({ url }),
};

function shaped(name: string, value: unknown): unknown {
  const shape = Object.hasOwn(BUILT_IN_SHAPES, name) ? BUILT_IN_SHAPES[name] : undefined;
  if (!shape || (typeof value !== 'string' && !Array.isArray(value))) return value;
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => (typeof item === 'string' ? shape(item) : item));
}

/** The fields `rules` produce inside `scope` (a document or an element), in rule order. */
export function applyRules(
  rules: readonly CompiledRule[],
  scope: Document | Element,
  baseUrl: string,
): Record<string, unknown> {
  return applyRulesIn(rules, scope, baseUrl, rules.length > 1);
}

function applyRulesIn(
  rules: readonly CompiledRule[],
  scope: Document | Element,
  baseUrl: string,
  indexed: boolean,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const rule of rules) {
    const value = applyRule(rule, scope, baseUrl, indexed);
    if (value !== undefined) fields[rule.name] = shaped(rule.name, value);
  }
  return fields;
}

/** The fields of every rule set in order; a later rule set's field replaces an earlier one's. */
export function applyRulesets(
  rulesets: readonly CompiledRuleset[],
  document: Document,
  baseUrl: string,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const ruleset of rulesets) Object.assign(fields, applyRulesIn(ruleset.rules, document, baseUrl, true));
  return fields;
}
