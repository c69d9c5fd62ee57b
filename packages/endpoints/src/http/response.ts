/**
 * `this.response` inside a handler: the status, headers and media type of the answer. The headers
 * object is created on first use, so handlers that never touch it cost nothing.
 */
export class EndpointResponse {
  /** Status to send; when unset, 200 with a body and 204 without. */
  code: number | undefined = undefined;
  /** Media type of the body, e.g. `text/csv`; `; charset=utf-8` is added for text types. */
  mediaType: string | undefined = undefined;
  #headers: Headers | undefined = undefined;

  get headers(): Headers {
    this.#headers ??= new Headers();
    return this.#headers;
  }

  /** The headers if a handler created them, without creating them. */
  get touchedHeaders(): Headers | undefined {
    return this.#headers;
  }
}
