import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  classSegment,
  isHandlerName,
  isPrivateClassName,
  moduleSegment,
  segmentExtension,
  segmentVariations,
} from '../src/naming.js';

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
  assert.equal(classSegment('Foo_bar_baz'), 'foo.bar_baz');
  assert.equal(classSegment('Default_html'), 'index.html');
});

test('module file names become kebab-case segments', () => {
  assert.equal(moduleSegment('foo_bar'), 'foo-bar');
  assert.equal(moduleSegment('fooBar'), 'foo-bar');
  assert.equal(moduleSegment('users'), 'users');
});

test('a segment is accepted in kebab, snake and upper-case spellings only', () => {
  assert.deepEqual(segmentVariations('che-baz'), ['che-baz', 'che_baz', 'CHE-BAZ', 'CHE_BAZ']);
  assert.deepEqual(segmentVariations('foo'), ['foo', 'FOO']);
  assert.equal(segmentExtension('foo.xml'), 'xml');
  assert.equal(segmentExtension('foo'), undefined);
});

test('private class names and handler names', () => {
  assert.ok(isPrivateClassName('_Foo'));
  assert.ok(isPrivateClassName('BaseController'));
  assert.ok(!isPrivateClassName('Foo'));
  assert.ok(isHandlerName('GET'));
  assert.ok(isHandlerName('ANY'));
  assert.ok(!isHandlerName('get'));
  assert.ok(!isHandlerName('GET_foo'));
});
