import assert from 'node:assert/strict';
import { test } from 'node:test';
import { handlerOutcomes } from '../src/openapi/outcomes.js';

test('statuses are read from handler code of every shape, batched or one by one', () => {
  const handlers = {
    GET(id: string) {
      if (id === 'x') throw new Error('not a CallError, so not documented');
      return id;
    },
    async DELETE() {
      [1, 2].map((n) => {
        return n;
      });
    },
    *LIST() {
      yield 1;
    },
    POST(flag: boolean) {
      if (flag) return;
      return 1;
    },
  };
  const arrow = () => 'value';
  const expression = function (this: { response: { code: number } }) {
    this.response.code = 202;
    return null;
  };
  const fns = [handlers.GET, handlers.DELETE, handlers.LIST, handlers.POST, arrow, expression];
  const outcomes = handlerOutcomes(fns);
  assert.deepEqual(
    fns.map((fn) => outcomes.get(fn)?.success),
    [[200], [204], [200], [200, 204], [200], [202]],
    'a return inside a nested function is not the handler’s',
  );
  // The methods alone go through the batched parse; the same answers come out.
  const batched = handlerOutcomes(fns.slice(0, 4));
  assert.deepEqual(
    fns.slice(0, 4).map((fn) => batched.get(fn)?.success),
    [[200], [204], [200], [200, 204]],
  );
});

test('literal error codes, redirects and stops are read; unparsable code is assumed to answer 200', () => {
  class CallError extends Error {
    constructor(
      readonly code: number,
      message = '',
    ) {
      super(message);
    }
  }
  class Redirect extends Error {}
  const handlers = {
    GET(n: number) {
      if (n === 1) throw new CallError(409, 'taken');
      if (n === 2) throw new CallError(n);
      throw new Redirect();
    },
  };
  const outcomes = handlerOutcomes([handlers.GET]);
  assert.deepEqual(outcomes.get(handlers.GET), { success: [302], errors: [409] });

  // Read alone, a method touching a private field does not parse: it is assumed to answer 200.
  class Counter {
    #count = 0;
    GET() {
      this.#count += 1;
    }
  }
  const unparsable = Counter.prototype.GET;
  assert.deepEqual(handlerOutcomes([unparsable]).get(unparsable), { success: [200], errors: [] });
});
