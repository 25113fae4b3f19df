// Sending one picture to the server: POST /api/boards/{id}/assets with the file's bytes as the
// body (XMLHttpRequest, for its upload progress), and the words a person reads when the server
// refuses it: too large (with the limit), unsupported (the server's message, which says what to
// convert it to), the board full, or not allowed.

/** The server's default for `--max-asset-bytes`, said when a cut connection hides the answer. */
const DEFAULT_MAX_BYTES = 10 << 20;

/** A refused or failed upload: `status` (0: no answer), `code` and `message` from the server. */
export class UploadError extends Error {
  constructor(status, code, message) {
    super(message || `the picture was not taken (HTTP ${status})`);
    this.status = status;
    this.code = code || '';
  }
}

/**
 * Uploads `file` to board `boardId`; `onProgress(fraction)` follows the bytes sent. Resolves the
 * server's description `{sha256, mime, bytes, w, h, animated}`, rejects an `UploadError`.
 */
export function uploadPicture(boardId, file, onProgress = () => {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/boards/${encodeURIComponent(boardId)}/assets`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.setRequestHeader('x-file-name', asciiName(file.name));
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable && e.total) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      const data = parse(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300 && data && data.sha256) {
        onProgress(1);
        resolve(data);
        return;
      }
      const e = (data && data.error) || {};
      reject(new UploadError(xhr.status, e.code, e.message));
    });
    xhr.addEventListener('error', () => reject(new UploadError(0, 'network', '')));
    xhr.addEventListener('abort', () => reject(new UploadError(0, 'aborted', '')));
    xhr.send(file);
  });
}

/** What a person reads when `file` was not taken. */
export function uploadErrorText(file, err) {
  const name = file.name || 'The picture';
  const code = err instanceof UploadError ? err.code : '';
  const status = err instanceof UploadError ? err.status : 0;
  if (code === 'too_large') {
    const limit = bytesIn(err.message);
    return `${name} is too large: a picture may be at most ${limit ? formatBytes(limit) : 'the server\u2019s limit'}.`;
  }
  if (code === 'limit_exceeded') {
    const limit = bytesIn(err.message);
    const most = limit ? ` (its pictures may take ${formatBytes(limit)} in all)` : '';
    return `This board is full${most}: ${name} was not added.`;
  }
  if (code === 'unsupported_media') return `${name}: ${err.message}`;
  if (status === 401 || status === 403 || status === 404) return `${name}: you may not add pictures to this board.`;
  if (status === 0) {
    if (file.size > DEFAULT_MAX_BYTES) {
      return `${name} is too large: a picture may be at most ${formatBytes(DEFAULT_MAX_BYTES)} (the server's usual limit).`;
    }
    return `${name} could not be sent: the connection failed.`;
  }
  return `${name}: ${err.message}`;
}

/** "2.5 MiB", "800 KiB", "512 bytes". */
export function formatBytes(n) {
  if (n >= 1 << 20) return `${trim(n / (1 << 20))} MiB`;
  if (n >= 1 << 10) return `${trim(n / (1 << 10))} KiB`;
  return `${n} bytes`;
}

function trim(v) {
  return String(Math.round(v * 10) / 10);
}

/** The first number of bytes a server message names ("... at most 10485760 bytes"). */
function bytesIn(message) {
  const m = /(\d+) bytes/.exec(message || '');
  return m ? Number(m[1]) : 0;
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A header carries ASCII only: other characters of a file name become "_". */
function asciiName(name) {
  return (name || 'picture').replace(/[^\x20-\x7e]/g, '_').slice(0, 200);
}
