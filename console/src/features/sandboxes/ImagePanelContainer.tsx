import { useEffect } from 'react';
import { ApiError } from '../../api/client';
import { toastFailure } from '../toasts/outcome';
import { ImagePanel, type ImageChoice, type ImageStatus } from './ImagePanel';
import { useImageCheck } from './queries';
import { IMAGE_CHECK_DEBOUNCE_MS } from './rules';
import { useDebounced } from './useDebounced';

/** The image panel with its check: GET /image/{name} once the name has not changed for 600 ms. */
export function ImagePanelContainer(props: {
  choice: ImageChoice;
  terminal: boolean;
  starting: boolean;
  onChange: (choice: ImageChoice) => void;
  onCreate: () => void;
}) {
  const settled = useDebounced(props.choice.image, IMAGE_CHECK_DEBOUNCE_MS);
  const check = useImageCheck(settled);
  const unknown = check.isError && check.error instanceof ApiError && check.error.status === 404;
  const status: ImageStatus =
    props.choice.image === ''
      ? { state: 'idle' }
      : settled !== props.choice.image || check.isFetching
        ? { state: 'checking' }
        : check.data
          ? { state: 'found', versions: check.data.versions.map((v) => v.value) }
          : unknown || !check.isError
            ? { state: 'unknown' }
            : { state: 'failed', reason: check.error.message };

  // A registry that is down is not an unknown image: that failure also gets the shared toast.
  const failure = check.isError && !unknown ? check.error : null;
  useEffect(() => {
    if (failure) toastFailure(failure);
  }, [failure]);

  // The first version is chosen for the person once the versions are known.
  const { choice, onChange } = props;
  const versions = status.state === 'found' ? status.versions : null;
  useEffect(() => {
    if (versions && versions.length > 0 && !versions.includes(choice.version))
      onChange({ ...choice, version: versions.includes('latest') ? 'latest' : versions[0]! });
  }, [versions, choice, onChange]);

  return <ImagePanel {...props} status={status} />;
}
