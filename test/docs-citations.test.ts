import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

// Comments cite the contract as `docs/api.md#<anchor>` (and further anchors of the same page as
// `#other` in the same parenthesis). This test keeps those citations pointing at headings that
// exist, and keeps the code from citing the specification files that live outside the repository.

const ROOT = path.resolve(import.meta.dirname, '..');
const SCANNED = ['src', 'test', 'bench', 'bin', 'docs', 'DEVELOPERS.md', 'README.md'];

function filesUnder(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (entry.endsWith('.md')) return [full];
  const out: string[] = [];
  for (const dirent of readdirSync(full, { withFileTypes: true, recursive: true })) {
    if (!dirent.isFile() || !/\.(ts|mjs|md)$/.test(dirent.name)) continue;
    out.push(path.join(dirent.parentPath, dirent.name));
  }
  return out;
}

/** GitHub's heading slug: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Map<string, number> {
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (heading) counts.set(slug(heading[1]), (counts.get(slug(heading[1])) ?? 0) + 1);
  }
  return counts;
}

interface Citation {
  readonly file: string;
  readonly line: number;
  readonly page: string;
  readonly anchor: string;
}

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const file of SCANNED.flatMap(filesUnder)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/docs\/([\w-]+\.md)#([\w-]+)([^)\n]*)/g)) {
      const line = text.slice(0, match.index).split('\n').length;
      const rel = path.relative(ROOT, file);
      found.push({ file: rel, line, page: match[1], anchor: match[2] });
      for (const more of match[3].matchAll(/(?:^|[\s,;(])#([a-z][\w-]*)/g)) {
        found.push({ file: rel, line, page: match[1], anchor: more[1] });
      }
    }
  }
  return found;
}

test('every docs/*.md#anchor cited in the repository names a heading of that page', () => {
  const all = citations();
  assert.ok(all.length > 50, `expected the code to cite docs/api.md, found ${all.length} citations`);
  const pages = new Map<string, Map<string, number>>();
  const broken: string[] = [];
  for (const citation of all) {
    let anchors = pages.get(citation.page);
    if (!anchors) {
      anchors = anchorsOf(readFileSync(path.join(ROOT, 'docs', citation.page), 'utf8'));
      pages.set(citation.page, anchors);
    }
    if (!anchors.has(citation.anchor)) {
      broken.push(`${citation.file}:${citation.line} docs/${citation.page}#${citation.anchor}`);
    }
  }
  assert.deepEqual(broken, [], 'citations of headings that do not exist');
});

test('docs/api.md has no two headings with the same anchor', () => {
  const anchors = anchorsOf(readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8'));
  const repeated = [...anchors].filter(([, count]) => count > 1).map(([anchor]) => anchor);
  assert.deepEqual(repeated, []);
});

test('the code cites docs/api.md, not the specification files outside the repository', () => {
  const offending: string[] = [];
  for (const file of ['src', 'bench', 'bin'].flatMap(filesUnder)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, index) => {
        if (/\b(SPEC|DECISIONS)\.md\b/.test(text))
          offending.push(`${path.relative(ROOT, file)}:${index + 1}`);
      });
  }
  assert.deepEqual(offending, [], 'cite docs/api.md#<anchor> instead');
});
