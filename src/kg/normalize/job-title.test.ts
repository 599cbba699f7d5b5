import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutTitleQualifiers } from './job-title.ts';

test('qualifiers written with a job title are left out of the role', () => {
  for (const [written, role] of [
    ['Interim Sales Director', 'Sales Director'],
    ['Acting CEO', 'CEO'],
    ['Software Engineer (m/w/d)', 'Software Engineer'],
    ['Software Engineer (f/m/x)', 'Software Engineer'],
    ['Designer (w/m/d)', 'Designer'],
    ['Designer m/w/d', 'Designer'],
    ['Chargé d’affaires (H/F)', 'Chargé d’affaires'],
    ['Data Scientist (all genders)', 'Data Scientist'],
    ['CFO ad interim', 'CFO'],
    ['CFO a.i.', 'CFO'],
    ['Sales Director (Interim)', 'Sales Director'],
    ['Accountant, interim', 'Accountant'],
    ['Designer (f/m/x) - Remote', 'Designer'],
    ['Interim Marketing Lead (m/f/d)', 'Marketing Lead'],
  ])
    assert.equal(withoutTitleQualifiers(written), role, written);
});

test('a title without qualifiers, or nothing but one, is kept as written', () => {
  for (const title of [
    'Sales Director',
    'Contract Manager',
    'Head of R/D',
    'Sales / Marketing',
    'Interim',
    '(m/w/d)',
    'Senior Designer',
    '',
  ])
    assert.equal(withoutTitleQualifiers(title), undefined, title);
  // A qualifier's words inside the role stay ("Head of Interim Management").
  assert.equal(withoutTitleQualifiers('Head of Interim Management'), undefined);
});

test('a few qualifiers are dropped at each end; a long run of them is read as written', () => {
  const tags = (n: number) => Array.from({ length: n }, () => '(m/w/d)').join(' ');
  assert.equal(withoutTitleQualifiers(`Designer ${tags(6)}`), 'Designer');
  assert.equal(withoutTitleQualifiers(`Designer ${tags(250)}`), `Designer ${tags(244)}`);
  const interims = Array.from({ length: 250 }, () => 'Interim').join(' ');
  assert.equal(withoutTitleQualifiers(`${interims} Designer`), `${interims.slice(6 * 8)} Designer`);
  assert.equal(withoutTitleQualifiers(`Designer ${'-'.repeat(2000)}x`), undefined);
});
