import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { collapseBlankLines } from './content-block.ts';

describe('collapseBlankLines', () => {
  test('does what /\\n\\s*\\n/g → "\\n" does', () => {
    for (const text of [
      '',
      'a',
      '\n',
      '\n\n',
      'a\n\nb',
      'a\n \t\n  b',
      ' \n\u00a0\n\n x\ny\n',
      'a\n b\n\r\nc',
      '\n\u2028\n',
    ]) {
      assert.equal(collapseBlankLines(text), text.replace(/\n\s*\n/g, '\n'), JSON.stringify(text));
    }
  });
});
