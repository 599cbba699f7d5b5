/**
 * `exportfile`: the download's file name, made safe for a `Content-Disposition` header and for
 * the caller's file system (docs/api.md#downloads: sanitised, no path components).
 */
import type { ExportFormat } from './export-format.ts';
import { EXPORT_FORMATS } from './export-format.ts';

/** Longest file name produced, in characters (most file systems allow 255 bytes). */
const MAX_NAME_CHARS = 120;
const DEFAULT_BASE = 'export';
// Windows device names are unusable as file names whatever the extension.
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;
// Controls (C0, DEL, C1), path and shell-hostile punctuation, bidi overrides and zero-width marks.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f"*:<>?|\\/\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * Returns a safe file name for a download in `format`:
 * - only the last path component is kept (`../../etc/passwd` → `passwd.csv`, `a\b.csv` → `b.csv`);
 * - control characters, `"*:<>?|\/`, bidi controls and zero-width marks are removed, runs of
 *   white space become one space, leading/trailing dots and spaces are trimmed;
 * - the name is cut to 120 characters (without splitting a surrogate pair);
 * - `.<extension>` of the format is added unless the name already ends with it (case-insensitive);
 * - an empty result, or a Windows device name (`con`, `nul`, ...), becomes `export`.
 * Non-ASCII letters are kept; use `contentDisposition` to send the name.
 */
export function sanitizeExportFileName(name: string | undefined, format: ExportFormat): string {
  const extension = `.${EXPORT_FORMATS[format].extension}`;
  const lastComponent = (name ?? '').split(/[/\\]/).pop() ?? '';
  let base = lastComponent
    .toWellFormed()
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .replace(UNSAFE, '')
    .replace(/ {2,}/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  if (base.toLowerCase().endsWith(extension)) base = base.slice(0, -extension.length).replace(/[\s.]+$/, '');
  base = cut(base, MAX_NAME_CHARS - extension.length).replace(/[\s.]+$/, '');
  if (base === '' || RESERVED.test(base.split('.')[0])) base = base === '' ? DEFAULT_BASE : `_${base}`;
  return `${base}${extension}`;
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * The `Content-Disposition` value for downloading `fileName` (already sanitised): `attachment`,
 * an ASCII `filename` fallback (non-ASCII characters become `_`) and, when the name is not plain
 * ASCII, `filename*` with its UTF-8 percent-encoding (RFC 6266 §4.3, RFC 8187).
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  if (ascii === fileName) return `attachment; filename="${ascii}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc8187(fileName.toWellFormed())}`;
}

/** Percent-encodes `value` as an RFC 8187 `value-chars` (everything but `attr-char`). */
export function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}
