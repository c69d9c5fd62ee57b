import { CallError, Controller } from '../../src/index.js';

/**
 * `POST /files` with a multipart form: a part with a filename arrives as a web `File`.
 *   curl -F upload=@notes.txt -F label=mine http://127.0.0.1:8000/files
 */
export class Default extends Controller {
  async POST({ upload, label = '' }: { upload: unknown; label?: string }) {
    if (!(upload instanceof File)) throw new CallError(400, "the form field 'upload' must be a file");
    return { name: upload.name, type: upload.type, bytes: upload.size, label };
  }
}
