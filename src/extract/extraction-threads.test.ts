import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExtractionThreads } from './extraction-threads.ts';

const page = (title: string) => ({
  api: 'article',
  url: 'https://example.com/a',
  finalUrl: 'https://example.com/a',
  content: {
    text: `<html><body><article><h1>${title}</h1><p>Some words of ${title}.</p></article></body></html>`,
  },
  rulesets: [],
});

test('an idle extraction thread ends after idleMs, and the next page starts another', async () => {
  const threads = new ExtractionThreads({ size: 2, idleMs: 150 });
  try {
    const first = await threads.extract(page('One'));
    assert.equal(threads.threads, 1);
    assert.match(JSON.stringify(first), /One/);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(threads.threads, 0);
    assert.equal(threads.retired, 1);
    assert.equal(threads.replaced, 0);
    const second = await threads.extract(page('Two'));
    assert.match(JSON.stringify(second), /Two/);
    assert.equal(threads.threads, 1);
  } finally {
    await threads.close();
  }
});
