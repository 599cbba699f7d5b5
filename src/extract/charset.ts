import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';
import { TextDecoder } from 'node:util';

/** The essence and charset of a `Content-Type` header value, lowercased; empty when absent. */
export interface MediaType {
  /** `type/subtype`, e.g. `text/html`; `undefined` when the header is absent or malformed. */
  readonly essence: string | undefined;
  /** The `charset` parameter as written (unquoted), when present. */
  readonly charset: string | undefined;
}

/** Parses a `Content-Type` header value (RFC 9110 §8.3). Never throws. */
export function parseMediaType(header: string | undefined): MediaType {
  if (!header) return { essence: undefined, charset: undefined };
  const [rawEssence, ...params] = header.split(';');
  const essence = rawEssence.trim().toLowerCase();
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { essence: /^[\w.+-]+\/[\w.+-]+$/.test(essence) ? essence : undefined, charset };
}

/** True when `label` names an encoding the WHATWG Encoding Standard (and so `TextDecoder`) knows. */
function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Determines the character encoding of an HTML document the way browsers do (WHATWG HTML
 * "determining the character encoding"): byte order mark, then the transport-layer charset
 * (the `Content-Type` header), then a `<meta charset>` / `http-equiv` prescan of the first
 * 1024 bytes. With no declaration at all the body is taken as UTF-8 when it is valid UTF-8 and
 * as windows-1252 (the web's legacy default) otherwise. Returns the WHATWG encoding name
 * (`utf-8`, `windows-1252`, `shift_jis`, ...).
 */
export function detectCharset(body: Uint8Array, declaredCharset?: string): string {
  const transport = declaredCharset && decoderFor(declaredCharset) ? declaredCharset : undefined;
  const sniffer = new Sniffer({ transportLayerEncodingLabel: transport });
  sniffer.write(body.subarray(0, 1024));
  if (sniffer.resultType === ResultType.DEFAULT) return isValidUtf8(body) ? 'utf-8' : 'windows-1252';
  return decoderFor(sniffer.encoding)?.encoding ?? 'utf-8';
}

/** Decodes `body` as `charset` (a WHATWG label); malformed sequences become U+FFFD. BOMs are dropped. */
export function decodeText(body: Uint8Array, charset: string): string {
  return (decoderFor(charset) ?? new TextDecoder('utf-8')).decode(body);
}

/** Sniffs the charset of an HTML body (see `detectCharset`) and decodes it. */
export function decodeHtml(body: Uint8Array, contentTypeHeader?: string): { text: string; charset: string } {
  const charset = detectCharset(body, parseMediaType(contentTypeHeader).charset);
  return { text: decodeText(body, charset), charset };
}
