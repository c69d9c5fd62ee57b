/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Markup that is already safe: built by `html` (which escaped every value) or a fixed literal. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** A value a template may interpolate: text (escaped), safe markup, a list of either, or nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.markup;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * The one way pages are written: every interpolated value is escaped unless it is SafeHtml (the
 * result of another `html` template), so a book titled `<script>` is text wherever it appears.
 * `false`, `null` and `undefined` render nothing, so `${cond && html`…`}` works.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) markup += render(values[i] as HtmlValue) + (strings[i + 1] ?? '');
  return new SafeHtml(markup);
}
