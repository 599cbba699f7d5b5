/**
 * Reading a response body within a byte cap, and undoing its `Content-Encoding`: the body
 * layer of the fetcher. Both caps are on bytes after decompression (docs/api.md#fetching: 10 MiB).
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { FetchError } from '../errors.ts';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

function tooLarge(url: string, maxBytes: number): FetchError {
  return new FetchError('fetch_too_large', `Response from ${url} exceeds ${maxBytes} bytes`);
}

/**
 * Reads a body of at most `maxBytes` (a declared `Content-Length` above it fails at once,
 * without reading). Throws `fetch_too_large` and destroys the stream when over.
 */
export async function readBody(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): void },
  declaredLength: number,
  url: string,
  maxBytes: number,
): Promise<Buffer> {
  if (declaredLength > maxBytes) {
    body.destroy();
    throw tooLarge(url, maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      throw tooLarge(url, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Undoes `encoding` (`gzip`, `deflate` zlib-wrapped or raw, `br`, none), producing at most
 * `maxBytes`. Throws `fetch_too_large` past it, `fetch_bad_response` for an unknown encoding or
 * corrupt data.
 */
export async function decompress(
  body: Buffer,
  encoding: string,
  maxBytes: number,
  url: string,
): Promise<Buffer> {
  const options = { maxOutputLength: maxBytes };
  try {
    switch (encoding) {
      case '':
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return await gunzip(body, options);
      case 'deflate':
        // RFC 9110 says zlib-wrapped, but some servers send raw deflate: the zlib header's first
        // byte has low nibble 8 (CM = deflate).
        return (body[0] & 0x0f) === 8 ? await inflate(body, options) : await inflateRaw(body, options);
      case 'br':
        return await brotli(body, { maxOutputLength: maxBytes });
      default:
        throw new FetchError('fetch_bad_response', `Unsupported Content-Encoding "${encoding}" from ${url}`);
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw tooLarge(url, maxBytes);
    }
    throw new FetchError('fetch_bad_response', `Response from ${url} is not valid ${encoding} data`);
  }
}

/** Response headers with lowercased names; repeated headers joined with `, `. */
export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
