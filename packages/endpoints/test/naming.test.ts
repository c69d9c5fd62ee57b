import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classSegment } from '../src/naming.js';

test('class names become kebab-case URL segments', () => {
  assert.equal(classSegment('Foo'), 'foo');
  assert.equal(classSegment('CheBaz'), 'che-baz');
  assert.equal(classSegment('HTTPServer'), 'http-server');
  assert.equal(classSegment('User2Name'), 'user2name');
  assert.equal(classSegment('FooBAR'), 'foo-bar');
});

test('the first underscore starts a lower-cased extension', () => {
  assert.equal(classSegment('FooBar_txt'), 'foo-bar.txt');
  assert.equal(classSegment('FooBar_TXT'), 'foo-bar.txt');
  assert.equal(classSegment('Robots_txt'), 'robots.txt');
  assert.equal(classSegment('FooBar_'), 'foo-bar');
});
