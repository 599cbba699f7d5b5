/**
 * The preview card of an entity (docs/reconcile.md#preview): a small HTML page OpenRefine shows
 * in an iframe when a person hovers over a candidate. Everything from the graph is escaped.
 */
import type { Entity } from '../kg/index.ts';
import { locationLine } from './properties.ts';

/** Size of the iframe the manifest asks for, pixels. */
export const PREVIEW_SIZE = Object.freeze({ width: 430, height: 160 });

const ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
});

/** `text` safe in HTML text and in a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

function line(label: string, value: string | undefined): string {
  return value ? `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>` : '';
}

function facts(entity: Entity): string {
  const employer = entity.employments?.find((job) => job?.isCurrent !== false && job?.employer?.name);
  const founded =
    typeof entity.foundingDate?.str === 'string' ? entity.foundingDate.str.replace(/^d/, '') : undefined;
  return [
    line('Website', entity.homepageUri),
    line('Location', locationLine(entity.location)),
    line('Industries', entity.industries?.filter((i) => typeof i === 'string').join(', ')),
    line('Founded', founded),
    line('Employees', typeof entity.nbEmployees === 'number' ? String(entity.nbEmployees) : undefined),
    line('Works at', employer?.employer?.name),
    line('Title', employer?.title),
  ].join('');
}

/** The card of `entity`, linking to its page at `viewUrl` (the console's entity page). */
export function previewHtml(entity: Entity, viewUrl: string): string {
  const name = typeof entity.name === 'string' ? entity.name : entity.id;
  const description =
    typeof entity.description === 'string' ? `<p>${escapeHtml(entity.description.slice(0, 300))}</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(name)}</title>
<style>body{font:13px/1.35 system-ui,sans-serif;margin:6px;color:#222}h1{font-size:15px;margin:0 0 2px}
.t{color:#666;font-size:12px}p{margin:4px 0}dl{display:grid;grid-template-columns:auto 1fr;gap:1px 8px;margin:4px 0}
dt{color:#666}dd{margin:0}</style></head>
<body><h1><a href="${escapeHtml(viewUrl)}" target="_blank" rel="noopener">${escapeHtml(name)}</a></h1>
<div class="t">${escapeHtml(entity.type)} · ${escapeHtml(entity.id)}</div>${description}<dl>${facts(entity)}</dl></body></html>
`;
}
