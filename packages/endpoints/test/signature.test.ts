import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepSignature, readSignature } from '../src/binding/signature.js';
import { EndpointsError } from '../src/index.js';

const read = (fn: (...args: never) => unknown) => readSignature(fn, 'test');

test('plain parameters are positional, required unless defaulted', () => {
  const handlers = {
    GET(one: string, two: string | null = null) {
      return [one, two];
    },
  };
  assert.deepEqual(read(handlers.GET), {
    positionals: [
      { name: 'one', required: true },
      { name: 'two', required: false, default: null },
    ],
    rest: false,
    keywords: null,
  });
});

test('a trailing destructured object declares keywords; its rest is **kwargs', () => {
  const handlers = {
    async GET(id: string, { name, flag = false, ...rest }: Record<string, unknown> = {}) {
      return [id, name, flag, rest];
    },
  };
  const signature = read(handlers.GET);
  assert.deepEqual(signature.positionals, [{ name: 'id', required: true }]);
  assert.deepEqual(signature.keywords, {
    index: 1,
    names: new Map([
      ['name', true],
      ['flag', false],
    ]),
    rest: true,
    defaults: new Map([['flag', false]]),
  });
});

test('defaults written as JSON literals are kept for documentation; computed ones are not', () => {
  const handlers = {
    GET(
      a = -1.5,
      b = 'x',
      c = [1, 'two', { three: true }],
      d = undefined,
      e = Date.now(),
      { f = `plain`, g = { h: null }, i = /re/, j = 2n } = {},
    ) {
      return [a, b, c, d, e, f, g, i, j];
    },
  };
  const signature = read(handlers.GET);
  assert.deepEqual(
    signature.positionals.map((param) => ('default' in param ? param.default : '(none)')),
    [-1.5, 'x', [1, 'two', { three: true }], '(none)', '(none)'],
  );
  assert.deepEqual(
    signature.keywords?.defaults,
    new Map<string, unknown>([
      ['f', 'plain'],
      ['g', { h: null }],
    ]),
  );
});

test('a rest parameter is *args, and the keyword object may sit just before it', () => {
  const signature = read((a: string, { k = 1 }: { k?: number } = {}, ...more: string[]) => [a, k, more]);
  assert.equal(signature.rest, true);
  assert.deepEqual(signature.positionals, [{ name: 'a', required: true }]);
  assert.equal(signature.keywords?.index, 1);
  assert.deepEqual(
    read((...all: unknown[]) => all),
    { positionals: [], rest: true, keywords: null },
  );
});

test('default values holding parentheses, braces, strings and regular expressions do not confuse the reader', () => {
  const handlers = {
    GET(a = ')', b = { x: '(' }, c = /\)/.source, d = `${'}'}`, e = ((x: number) => x)(1)) {
      return [a, b, c, d, e];
    },
    // biome-ignore lint/complexity/useLiteralKeys: a computed method name is the case under test.
    ['POST'](x: string) {
      return x;
    },
  };
  assert.deepEqual(
    read(handlers.GET).positionals.map((param) => param.name),
    ['a', 'b', 'c', 'd', 'e'],
  );
  assert.deepEqual(read(handlers.POST).positionals, [{ name: 'x', required: true }]);
  assert.deepEqual(read((x: string) => x).positionals, [{ name: 'x', required: true }]);
});

test('a wrapper marked with keepSignature is read through to the original', () => {
  const original = (one: string, { two }: { two: string }) => [one, two];
  const wrapper = keepSignature((...args: unknown[]) => args, original);
  assert.deepEqual(read(wrapper).positionals, [{ name: 'one', required: true }]);
  assert.deepEqual([...(read(wrapper).keywords?.names ?? [])], [['two', true]]);
});

test('unreadable handlers fail at load with a named error', () => {
  const bound = function (this: unknown, a: string) {
    return a;
  }.bind(null);
  assert.throws(
    () => readSignature(bound, 'Foo.GET in foo.ts'),
    (error: unknown) =>
      error instanceof EndpointsError &&
      error.code === 'SIGNATURE_UNREADABLE' &&
      /Foo\.GET in foo\.ts/.test(error.message),
  );
  const computed = {
    GET({ ['x' as string]: value }: Record<string, unknown>) {
      return value;
    },
  };
  assert.throws(() => read(computed.GET), /computed key/);
});
