import type { DescriptorStatus, RateLimitResponse } from '../protocol/messages.js';
import { UNITS } from '../protocol/units.js';

/** The /json answer: its text, and that text's length in UTF-8 bytes. */
export interface EncodedJson {
  readonly text: string;
  readonly bytes: number;
}

/** Any character past U+007F: such text is longer in UTF-8 than in UTF-16 code units. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A JSON text being written, with the UTF-8 bytes its free-form strings add over their length:
 * everything else written is ASCII, so the byte length needs no second pass over the text.
 */
class JsonText {
  text = '';
  extraBytes = 0;

  /** Appends JSON produced by JSON.stringify from free-form values (names, headers, metadata). */
  free(json: string): void {
    if (NON_ASCII.test(json)) this.extraBytes += Buffer.byteLength(json) - json.length;
    this.text += json;
  }
}

/**
 * Encodes the response as proto3 JSON: enum names, `"42s"` durations, default values omitted.
 * Written straight into a string; only free-form texts go through JSON.stringify.
 */
export function encodeRateLimitResponse(response: RateLimitResponse): EncodedJson {
  const out = new JsonText();
  out.text = `{"overallCode":"${response.overallCode}"`;
  const statuses = response.statuses;
  if (statuses.length > 0) {
    out.text += ',"statuses":[';
    for (let i = 0; i < statuses.length; i++) {
      if (i > 0) out.text += ',';
      encodeStatus(out, statuses[i] as DescriptorStatus);
    }
    out.text += ']';
  }
  const headers = response.responseHeadersToAdd;
  if (headers.length > 0) {
    out.text += ',"responseHeadersToAdd":[';
    for (let i = 0; i < headers.length; i++) {
      const { key, value } = headers[i] as { key: string; value: string };
      out.text += i > 0 ? ',{' : '{';
      if (key !== '') {
        out.text += '"key":';
        out.free(JSON.stringify(key));
      }
      if (value !== '') {
        out.text += key !== '' ? ',"value":' : '"value":';
        out.free(JSON.stringify(value));
      }
      out.text += '}';
    }
    out.text += ']';
  }
  if (response.dynamicMetadata) {
    out.text += ',"dynamicMetadata":';
    out.free(JSON.stringify(response.dynamicMetadata));
  }
  out.text += '}';
  return { text: out.text, bytes: out.text.length + out.extraBytes };
}

/** `"unit":"<UNIT>"}` for every unit a rule can have, written as is; any other text is escaped. */
const UNIT_ENDINGS: ReadonlyMap<string, string> = new Map(
  Object.keys(UNITS).map((unit) => [unit, `"unit":"${unit}"}`]),
);

function encodeStatus(out: JsonText, status: DescriptorStatus): void {
  out.text += `{"code":"${status.code}"`;
  const limit = status.currentLimit;
  if (limit) {
    out.text += ',"currentLimit":{';
    if (limit.name !== '') {
      out.text += '"name":';
      out.free(JSON.stringify(limit.name));
      out.text += ',';
    }
    if (limit.requestsPerUnit !== 0) out.text += `"requestsPerUnit":${limit.requestsPerUnit},`;
    const unitEnding = UNIT_ENDINGS.get(limit.unit);
    if (unitEnding !== undefined) {
      out.text += unitEnding;
    } else {
      out.text += '"unit":';
      out.free(JSON.stringify(limit.unit));
      out.text += '}';
    }
  }
  if (status.limitRemaining !== 0) out.text += `,"limitRemaining":${status.limitRemaining}`;
  const reset = status.durationUntilReset;
  if (reset)
    out.text += `,"durationUntilReset":"${reset.seconds}${reset.nanos > 0 ? fraction(reset.nanos) : ''}s"`;
  out.text += '}';
}

/**
 * A Duration's nanos as protojson writes them: 3, 6 or 9 digits after the point (a sliding
 * window's or token bucket's reset has milliseconds; a fixed window's has none).
 */
function fraction(nanos: number): string {
  const digits = String(nanos).padStart(9, '0');
  if (digits.endsWith('000000')) return `.${digits.slice(0, 3)}`;
  if (digits.endsWith('000')) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}
