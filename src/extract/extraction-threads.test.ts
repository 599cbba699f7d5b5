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

test('the budget runs from the moment the thread begins the page, not while the thread starts', async () => {
  // A fresh thread loads its modules before it can begin (hundreds of ms; over 1.5 s on a loaded
  // host), longer than this budget: a light page must still be answered, on every fresh thread.
  const threads = new ExtractionThreads({ size: 1, idleMs: 10, budgetMs: 150 });
  try {
    for (const title of ['One', 'Two']) {
      const started = performance.now();
      const answer = await threads.extract(page(title));
      assert.match(JSON.stringify(answer), new RegExp(title));
      assert.ok(performance.now() - started > 150, 'the thread took longer to start than the budget');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(threads.threads, 0, 'the idle thread ended: the next page starts another');
    }
    assert.equal(threads.replaced, 0);
  } finally {
    await threads.close();
  }
});
