import CloudUploadIcon from '@mui/icons-material/CloudUpload';
import { Avatar, Box, Button, Dialog, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { toasts } from '../toasts/toast-store';
import { AVATAR_EXTENSIONS, isAllowedAvatar } from './avatar';
import { SaveCancelActions } from './SaveCancelActions';

export interface AvatarDialogProps {
  open: boolean;
  /** The avatar shown until another image is chosen. */
  currentUrl: string | null;
  saving: boolean;
  onCancel: () => void;
  onSave: (file: File) => void;
}

/** Choose an avatar by drag and drop or by browsing; a preview, then Cancel or Save. */
export function AvatarDialog({ open, currentUrl, saving, onCancel, onSave }: AvatarDialogProps) {
  const { t } = useTranslation('profile');
  return (
    <Dialog open={open} onClose={saving ? undefined : onCancel} fullWidth maxWidth="xs">
      <DialogTitle>{t('avatarTitle')}</DialogTitle>
      {/* The chosen file lives in the content: closing the dialog forgets it. */}
      {open && <AvatarChooser currentUrl={currentUrl} saving={saving} onCancel={onCancel} onSave={onSave} />}
    </Dialog>
  );
}

function AvatarChooser({ currentUrl, saving, onCancel, onSave }: Omit<AvatarDialogProps, 'open'>) {
  const { t } = useTranslation('profile');
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const inputId = useId();

  useEffect(() => {
    if (!file) return;
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    if (!isAllowedAvatar(chosen.name)) {
      toasts.show({ title: t('invalidExtension'), text: t('avatarExtensionText'), type: 'warning' });
      return;
    }
    setFile(chosen);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    choose(event.dataTransfer.files[0]);
  };

  return (
    <>
      <DialogContent>
        <Box
          data-testid="avatar-drop"
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={onDrop}
          sx={{
            border: '2px dashed',
            borderColor: over ? 'primary.main' : 'divider',
            bgcolor: over ? 'action.hover' : 'transparent',
            borderRadius: 2,
            p: 3,
            display: 'flex',
            flexDirection: 'column',
            alignItems: 'center',
            gap: 1.5,
            textAlign: 'center',
          }}
        >
          <Avatar
            src={preview ?? currentUrl ?? undefined}
            alt={t('avatarPreview')}
            sx={{ width: 112, height: 112 }}
            data-testid="avatar-preview"
          >
            <CloudUploadIcon fontSize="large" />
          </Avatar>
          <Typography variant="body2" color="text.secondary">
            {t('dropHere')}
          </Typography>
          <Button variant="outlined" size="small" onClick={() => input.current?.click()} disabled={saving}>
            {t('browse')}
          </Button>
          <input
            ref={input}
            id={inputId}
            type="file"
            hidden
            accept={AVATAR_EXTENSIONS.join(',')}
            data-testid="avatar-input"
            onChange={(e) => {
              choose(e.target.files?.[0]);
              e.target.value = '';
            }}
          />
          <Typography variant="caption" color="text.secondary">
            {file ? file.name : t('avatarFormats')}
          </Typography>
        </Box>
      </DialogContent>
      <SaveCancelActions
        saving={saving}
        canSave={file !== null}
        onCancel={onCancel}
        onSave={() => file && onSave(file)}
      />
    </>
  );
}
