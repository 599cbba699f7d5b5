import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, previewHtml } from './preview.ts';

test('the preview card escapes every value from the graph', () => {
  const html = previewHtml(
    {
      id: 'ORG-"x"',
      type: 'Organization',
      name: '<script>alert(1)</script>',
      description: 'A & B',
      homepageUri: 'x.example/"><img src=x>',
      industries: ["O'Reilly"],
    },
    'https://q.example/console/entity/ORG-%22x%22',
  );
  assert.ok(!html.includes('<script>'), html);
  assert.ok(!html.includes('<img'), html);
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('A &amp; B'));
  assert.ok(html.includes('O&#39;Reilly'));
  assert.ok(html.includes('ORG-&quot;x&quot;'));
  assert.equal(escapeHtml(`<>&"'`), '&lt;&gt;&amp;&quot;&#39;');
});
