import { Alert, Box, Stack, Typography, useMediaQuery } from '@mui/material';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Me } from '../../api/answers';
import { useOrganization } from '../../api/queries';
import { MOBILE_QUERY } from '../../app/theme';
import { toasts } from '../toasts/toast-store';
import { bodyOf, emptyForm, fileAvatarOf, formOf, type SandboxForm } from './form';
import { ImagePanelContainer } from './ImagePanelContainer';
import type { ImageChoice } from './ImagePanel';
import { LeaveDialog } from '../../components/ConfirmDialogs';
import { toastSandboxFailure, toastSandboxSuccess } from './outcomes';
import { builder, useCreateSandbox, useSandboxAvatar, useTags, useUpdateSandbox } from './queries';
import { sandboxRights, settingsProblem } from './rules';
import { SettingsPanel } from './SettingsPanel';
import { TerminalPanel } from './TerminalPanel';
import type { Sandbox } from './types';
import { useBuilderContainer } from './useBuilderContainer';
import { useLeaveGuard } from './useLeaveGuard';

// xterm is large: it loads with the first terminal, not with the page.
const SandboxTerminal = lazy(() => import('./SandboxTerminal'));

interface Saved {
  uuid: string;
  version: string;
  source: { image: string; version: string };
  imageId: string | null;
  imageRef: string | null;
  registry: string | null;
}
const savedOf = (sandbox: Sandbox): Saved => ({
  uuid: sandbox.uuid,
  version: sandbox.version,
  source: sandbox.source_image,
  imageId: sandbox.image_id || null,
  imageRef: sandbox.image_ref || null,
  registry: sandbox.registry_name || sandbox.image_registry || null,
});

/** The sandbox page's state (spec 1 §4): image → container and terminal → Save (create, or update). */
export function SandboxEditor({
  me,
  sandbox,
  viewOnly,
}: {
  me: Me;
  sandbox: Sandbox | null;
  viewOnly: boolean;
}) {
  const { t } = useTranslation('sandboxes');
  const mobile = useMediaQuery(MOBILE_QUERY);
  const organization = useOrganization();
  const tags = useTags();
  const [form, setForm] = useState<SandboxForm>(() => (sandbox ? formOf(sandbox) : emptyForm()));
  const [choice, setChoice] = useState<ImageChoice>({
    image: '',
    version: '',
    architecture: 'amd64',
    name: '',
  });
  const [saved, setSaved] = useState<Saved | null>(() => (sandbox ? savedOf(sandbox) : null));
  const [typed, setTyped] = useState(false);
  const [settingsShown, setSettingsShown] = useState(true);
  const avatar = useSandboxAvatar(saved?.uuid);
  const box = useBuilderContainer();
  const create = useCreateSandbox();
  const update = useUpdateSandbox();
  const saving = create.isPending || update.isPending;
  const blocker = useLeaveGuard(typed);

  // Editing a saved sandbox starts its container at once (once, also under StrictMode).
  const autoStarted = useRef(false);
  const { start } = box;
  useEffect(() => {
    if (!sandbox || viewOnly || autoStarted.current) return;
    autoStarted.current = true;
    void start(() => builder.startFromSandbox(sandbox.uuid, sandbox.name));
  }, [sandbox, viewOnly, start]);

  const change = useCallback((patch: Partial<SandboxForm>) => setForm((f) => ({ ...f, ...patch })), []);
  // A different version is a new sandbox, unless it is the saved one (spec 1 §4).
  const isNew = !saved || form.version !== saved.version;
  const source = saved?.source ?? (choice.image ? { image: choice.image, version: choice.version } : null);

  const save = () => {
    if (viewOnly || saving) return;
    const problem = settingsProblem(form);
    if (problem) {
      toasts.show({ title: t('settingsError'), text: t(problem), type: 'warning' });
      return;
    }
    const body = bodyOf(form, {
      uuid: isNew ? undefined : saved!.uuid,
      containerId: box.container ?? undefined,
      imageId: saved?.imageId ?? undefined,
      organizationMounts: organization.data?.mount_points ?? [],
      source: isNew && source ? source : undefined,
    });
    const done = (result: Sandbox) => {
      setSaved(savedOf(result));
      setTyped(false);
      setForm((f) => ({ ...f, file_avatar: undefined }));
    };
    if (isNew)
      create.mutate(body, {
        onSuccess: (result) => {
          done(result);
          toastSandboxSuccess('create');
        },
        onError: (error) => toastSandboxFailure('create', error),
      });
    else
      update.mutate(
        { ...body, uuid: saved!.uuid },
        {
          onSuccess: (result) => {
            done(result);
            toastSandboxSuccess('update');
          },
          onError: (error) => toastSandboxFailure('update', error),
        },
      );
  };
  // Ctrl+S saves, except in view mode (spec 1 §2.8).
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    if (viewOnly) return;
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== 's') return;
      event.preventDefault();
      saveRef.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [viewOnly]);

  const title = viewOnly ? t('viewTitle') : saved ? t('editTitle') : t('createTitle');
  const started = Boolean(box.container) || box.starting || Boolean(saved);
  const terminal = box.container ? (
    <Suspense fallback={null}>
      <SandboxTerminal
        key={`${box.container}-${box.connection}`}
        container={box.container}
        label={t('terminal')}
        onTyped={() => setTyped(true)}
        onClosed={box.onClosed}
        onResize={(rows, cols) => void builder.resize(box.container!, rows, cols).catch(() => undefined)}
      />
    </Suspense>
  ) : null;

  return (
    <Box sx={{ p: mobile ? 1.5 : 3 }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {viewOnly && sandbox && !sandboxRights(sandbox).edit && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {t('viewOnly')}
        </Alert>
      )}
      <Stack direction={{ xs: 'column', lg: 'row' }} spacing={2} sx={{ alignItems: { lg: 'flex-start' } }}>
        <Stack spacing={2} sx={{ flex: 2, minWidth: 0, maxWidth: started ? undefined : 760 }}>
          {!sandbox && !saved && !box.container && (
            <ImagePanelContainer
              choice={choice}
              terminal={Boolean(box.container)}
              starting={box.starting}
              onChange={setChoice}
              onCreate={() => {
                if (!form.name) change({ name: choice.name });
                void box.start(() =>
                  builder.start({
                    source_image: choice.image,
                    source_version: choice.version,
                    name: choice.name,
                  }),
                );
              }}
            />
          )}
          {started && (
            <TerminalPanel
              uid={me.uid ?? 1000}
              terminal={viewOnly ? null : terminal}
              container={box.container}
              starting={box.starting}
              failure={viewOnly ? null : box.failure}
              onRetry={box.retry}
              entrypoint={form.entrypoint}
              readOnly={viewOnly}
              settingsShown={settingsShown}
              saving={saving}
              onEntrypoint={(entrypoint) => change({ entrypoint })}
              onToggleSettings={() => setSettingsShown(!settingsShown)}
              onSave={save}
            />
          )}
        </Stack>
        {started && settingsShown && (
          <Box sx={{ flex: 1, minWidth: { lg: 380 }, maxWidth: { lg: 520 } }}>
            <SettingsPanel
              form={form}
              readOnly={viewOnly}
              knownTags={tags.data ?? []}
              groups={me.groups ?? []}
              organizationMounts={organization.data?.mount_points ?? []}
              avatarUrl={avatar.data ?? null}
              baseImage={{
                source,
                image: saved?.imageRef ?? saved?.imageId ?? null,
                registry: saved?.registry ?? null,
              }}
              onChange={change}
              onAvatar={(file) => void fileAvatarOf(file).then((file_avatar) => change({ file_avatar }))}
            />
          </Box>
        )}
      </Stack>
      <LeaveDialog
        ns="sandboxes"
        open={blocker.state === 'blocked'}
        onStay={() => blocker.reset?.()}
        onLeave={() => blocker.proceed?.()}
      />
    </Box>
  );
}
