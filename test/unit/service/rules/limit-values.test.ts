// Limit values as people write them and as the server shows them (resize, serve --max-vm-*).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  exactBytes,
  humanBytes,
  parseCpus,
  parseSize,
} from '../../../../src/service/rules/limit-values.js';

const M = 2 ** 20;
const G = 2 ** 30;

const PARSED: readonly [string, number | null][] = [
  ['512M', 512 * M],
  ['4G', 4 * G],
  ['4GiB', 4 * G],
  ['100T', 100 * 2 ** 40],
  ['1024', 1024],
  ['0', null],
  ['1.5G', null],
  ['lots', null],
  ['99999999999999999T', null],
];
for (const [text, bytes] of PARSED) {
  test(`parseSize(${JSON.stringify(text)}) is ${bytes}`, () =>
    assert.equal(parseSize(text), bytes));
}

const CPUS: readonly [string, number | null][] = [
  ['1', 1],
  ['0.5', 0.5],
  ['1024', 1024],
  ['1025', null],
  ['0', null],
  ['0.001', null],
  ['all', null],
];
for (const [text, cpus] of CPUS) {
  test(`parseCpus(${JSON.stringify(text)}) is ${cpus}`, () => assert.equal(parseCpus(text), cpus));
}

const SIZES: readonly [number, string][] = [
  [0, '0'],
  [1023, '1023'],
  [1536, '1.5K'],
  [67.15 * M, '67.1M'],
  [700 * M, '700M'],
  [1.25 * G, '1.2G'],
  [-5, '0'],
];
for (const [bytes, shown] of SIZES) {
  test(`humanBytes(${bytes}) is ${shown}`, () => assert.equal(humanBytes(bytes), shown));
}

const EXACT: readonly [number, string][] = [
  [4 * G, '4G'],
  [1025 * M, '1025M'],
  [100 * 2 ** 40, '100T'],
  [1536, '1536'],
  [3 * 1024, '3K'],
  [70424166, '70424166'],
];
for (const [bytes, shown] of EXACT) {
  test(`exactBytes(${bytes}) is ${shown}`, () => assert.equal(exactBytes(bytes), shown));
}
