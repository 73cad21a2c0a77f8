import { ApiError, failureOf } from '../../api/client';

/**
 * PUT /container/{uuid}/archive as multipart, reporting the percentage sent: fetch has no
 * upload progress in every browser, XMLHttpRequest does.
 */
export function uploadToContainer(
  container: string,
  file: File,
  onProgress: (percent: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', `/api/v0/container/${encodeURIComponent(container)}/archive`);
    request.withCredentials = true;
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
    };
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        onProgress(100);
        resolve();
        return;
      }
      let body: unknown = null;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // Not the API's envelope (a proxy's page): the status says enough.
      }
      const failure = failureOf(body);
      reject(new ApiError(request.status, failure?.code ?? 'upload', failure?.message ?? request.statusText));
    };
    request.onerror = () => reject(new ApiError(500, 'network', 'Upload failed'));
    const form = new FormData();
    form.append('file', file, file.name);
    request.send(form);
  });
}
