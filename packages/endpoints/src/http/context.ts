import type { Exchange } from './exchange.js';
import { EndpointRequest } from './request.js';
import { EndpointResponse } from './response.js';

/**
 * One request's state, built once when it arrives and handed along through dispatch: the
 * interface's exchange, and the `request`/`response` pair the controller will see.
 */
export class RequestContext {
  readonly exchange: Exchange;
  readonly request: EndpointRequest;
  readonly response = new EndpointResponse();

  constructor(exchange: Exchange) {
    this.exchange = exchange;
    this.request = new EndpointRequest(exchange);
  }
}
