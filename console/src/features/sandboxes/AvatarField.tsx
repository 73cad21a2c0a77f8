import { Avatar, Button, Stack, Typography } from '@mui/material';
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toasts } from '../toasts/toast-store';
import { AVATAR_EXTENSIONS, isAvatarFile } from './rules';

/** The sandbox's image avatar: the saved one (or none) until a .jpg/.jpeg/.png is chosen. */
export function AvatarField({
  savedUrl,
  name,
  readOnly,
  onChoose,
}: {
  savedUrl: string | null;
  name: string;
  readOnly: boolean;
  onChoose: (file: File) => void;
}) {
  const { t } = useTranslation('sandboxes');
  const inputId = useId();
  const [chosen, setChosen] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => {
    if (!chosen) return;
    const url = URL.createObjectURL(chosen);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [chosen]);
  return (
    <div>
      <Typography variant="subtitle2" gutterBottom>
        {t('avatar')}
      </Typography>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Avatar
          src={preview ?? savedUrl ?? undefined}
          alt={name}
          variant="rounded"
          sx={{ width: 56, height: 56 }}
        >
          {name.slice(0, 1).toUpperCase()}
        </Avatar>
        {!readOnly && (
          <>
            <input
              id={inputId}
              type="file"
              hidden
              accept={AVATAR_EXTENSIONS.map((e) => `.${e}`).join(',')}
              onChange={(e) => {
                const file = e.target.files?.[0];
                e.target.value = '';
                if (!file) return;
                if (!isAvatarFile(file.name)) {
                  toasts.show({
                    title: t('invalidExtension'),
                    text: t('avatarExtensionText'),
                    type: 'warning',
                  });
                  return;
                }
                setChosen(file);
                onChoose(file);
              }}
            />
            <Button component="label" htmlFor={inputId} variant="outlined" size="small">
              {t('chooseAvatar')}
            </Button>
          </>
        )}
      </Stack>
    </div>
  );
}
