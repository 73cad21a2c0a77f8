import RedoIcon from '@mui/icons-material/Redo';
import UndoIcon from '@mui/icons-material/Undo';
import { Alert, Box, Button, Drawer, IconButton, Stack, TextField, Tooltip, Typography } from '@mui/material';
import { useReactFlow } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useTags } from '../sandboxes/queries';
import { useLeaveGuard } from '../sandboxes/useLeaveGuard';
import { toasts } from '../toasts/toast-store';
import { Canvas } from './Canvas';
import { newId } from './canvasActions';
import type { SandboxInfo } from './EditorContext';
import { addNode, type SandboxRef } from './graph/items';
import type { Graph } from './graph/model';
import { bodyOf, type Meta } from './graph/saved';
import { saveProblem } from './graph/validate';
import { LeaveDialog } from '../../components/ConfirmDialogs';
import { toastSaveFailure, toastWorkflowSuccess } from './outcomes';
import { Palette, type PaletteSandbox } from './Palette';
import { usePaletteSandboxes, useSaveWorkflow } from './queries';
import { SettingsPanel } from './SettingsPanel';
import { TagsPicker } from './TagsPicker';
import { useEditorState, type Selection } from './useEditorState';

const sameMeta = (a: Meta, b: Meta) =>
  a.name === b.name && a.version === b.version && a.tags.join('\n') === b.tags.join('\n');

/** The create/edit/view page's body (spec 2 §2): fields, buttons, palette, canvas and settings. */
export function WorkflowEditor({
  uuid,
  initialMeta,
  initialGraph,
  readOnly,
  compact,
  meId,
}: {
  uuid?: string;
  initialMeta: Meta;
  initialGraph: Graph;
  readOnly: boolean;
  compact: boolean;
  meId: string;
}) {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  const flow = useReactFlow();
  const editor = useEditorState(initialGraph);
  const [meta, setMeta] = useState(initialMeta);
  const [savedMeta, setSavedMeta] = useState(initialMeta);
  const [settings, setSettings] = useState<Exclude<Selection, null> | null>(null);
  const [goTo, setGoTo] = useState<string | null>(null);
  const palette = usePaletteSandboxes();
  const tags = useTags();
  const save = useSaveWorkflow();

  const dirty = !readOnly && (editor.graphChanged || !sameMeta(meta, savedMeta));
  const blocker = useLeaveGuard(dirty);
  useEffect(() => {
    // After a first save the page moves to the edit route, once the guard knows nothing is unsaved.
    if (goTo && !dirty) navigate(goTo, { replace: true });
  }, [goTo, dirty, navigate]);

  const sandboxes = useMemo((): PaletteSandbox[] => palette.data ?? [], [palette.data]);
  const context = useMemo(
    () => ({
      sandboxes: new Map<string, SandboxInfo>(
        sandboxes.map((s) => [
          s.uuid,
          { name: s.name, author: s.author, avatar: s.avatar, phase: s.phase ?? 'Ready' },
        ]),
      ),
      sandboxesLoading: palette.isPending,
    }),
    [sandboxes, palette.isPending],
  );

  const addAtCentre = useCallback(
    (sandbox: SandboxRef) => {
      const box = document.querySelector('.react-flow')?.getBoundingClientRect();
      const at = box
        ? flow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
        : { x: 0, y: 0 };
      // Added ones fill a grid from the centre, so none hides another.
      const n = editor.graph.nodes.length;
      const slot = { x: at.x + (n % 4) * 130, y: at.y + (Math.floor(n / 4) % 6) * 130 };
      editor.change((g) => addNode(g, sandbox, slot, newId()));
    },
    [flow, editor],
  );

  const submit = () => {
    const problem = saveProblem(meta.name, editor.graph);
    if (problem) {
      toasts.show({ title: t('warning'), text: t(`problems.${problem}`), type: 'warning' });
      return;
    }
    const drawn = editor.graph;
    const sentMeta = meta;
    save.mutate(
      { uuid, body: bodyOf(meta, drawn) },
      {
        onSuccess: (saved) => {
          toastWorkflowSuccess(uuid ? 'update' : 'create');
          setSavedMeta(sentMeta);
          editor.markSaved(drawn);
          if (!uuid) setGoTo(`/workflow/edit/${saved.uuid}`);
        },
        onError: toastSaveFailure,
      },
    );
  };

  const title = readOnly && uuid ? t('viewTitle') : uuid ? t('editTitle') : t('createTitle');
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: 'calc(100dvh - 64px)', minHeight: 480 }}>
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        spacing={1.5}
        useFlexGap
        sx={{ p: compact ? 1 : 2, pb: 1, alignItems: { md: 'center' }, flexWrap: 'wrap' }}
      >
        <Typography variant="h6" component="h1" sx={{ mr: 1 }}>
          {title}
        </Typography>
        <TextField
          size="small"
          label={t('name')}
          value={meta.name}
          required
          disabled={readOnly}
          onChange={(e) => setMeta({ ...meta, name: e.target.value })}
          sx={{ minWidth: 200 }}
        />
        <TextField
          size="small"
          label={t('version')}
          value={meta.version}
          disabled={readOnly}
          onChange={(e) => setMeta({ ...meta, version: e.target.value })}
          sx={{ width: 110 }}
        />
        <TagsPicker
          value={meta.tags}
          known={tags.data ?? []}
          readOnly={readOnly}
          onChange={(next) => setMeta({ ...meta, tags: next })}
        />
        <Stack
          direction="row"
          spacing={1}
          sx={{ ml: { md: 'auto' }, alignItems: 'center', flexWrap: 'wrap' }}
          useFlexGap
        >
          {!readOnly && (
            <>
              <Tooltip title={`${t('actions.undo')} (Ctrl+Z)`}>
                <span>
                  <IconButton aria-label={t('actions.undo')} disabled={!editor.canUndo} onClick={editor.undo}>
                    <UndoIcon />
                  </IconButton>
                </span>
              </Tooltip>
              <Tooltip title={`${t('actions.redo')} (Ctrl+Y)`}>
                <span>
                  <IconButton aria-label={t('actions.redo')} disabled={!editor.canRedo} onClick={editor.redo}>
                    <RedoIcon />
                  </IconButton>
                </span>
              </Tooltip>
            </>
          )}
          <Button onClick={() => navigate('/workflow/list')}>{t('backToList')}</Button>
          <Button onClick={() => navigate('/session/create')}>{t('createSession')}</Button>
          <Button
            variant="contained"
            disabled={readOnly || editor.graph.nodes.length === 0 || save.isPending}
            onClick={submit}
          >
            {uuid ? t('update') : t('save')}
          </Button>
        </Stack>
      </Stack>
      {compact && (
        <Alert severity="info" sx={{ mx: 1, mb: 1 }}>
          {t('phoneViewOnly')}
        </Alert>
      )}
      {!compact && readOnly && (
        <Alert severity="info" sx={{ mx: 2, mb: 1 }}>
          {t('readOnly')}
        </Alert>
      )}
      <Box sx={{ flex: 1, minHeight: 0, display: 'flex', borderTop: 1, borderColor: 'divider' }}>
        {!readOnly && (
          <Box sx={{ width: 270, flexShrink: 0, borderRight: 1, borderColor: 'divider', minHeight: 0 }}>
            <Palette sandboxes={sandboxes} loading={palette.isPending} meId={meId} onAdd={addAtCentre} />
          </Box>
        )}
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Canvas
            editor={editor}
            readOnly={readOnly}
            meId={meId}
            context={context}
            onSettings={setSettings}
          />
        </Box>
        {settings && !compact && (
          <Box sx={{ borderLeft: 1, borderColor: 'divider', flexShrink: 0 }}>
            <SettingsPanel
              graph={editor.graph}
              selection={settings}
              readOnly={readOnly}
              change={editor.change}
              onClose={() => setSettings(null)}
            />
          </Box>
        )}
        {compact && (
          <Drawer anchor="bottom" open={settings !== null} onClose={() => setSettings(null)}>
            {settings && (
              <SettingsPanel
                graph={editor.graph}
                selection={settings}
                readOnly
                change={editor.change}
                onClose={() => setSettings(null)}
              />
            )}
          </Drawer>
        )}
      </Box>
      <LeaveDialog
        ns="workflows"
        open={blocker.state === 'blocked'}
        onStay={() => blocker.reset?.()}
        onLeave={() => blocker.proceed?.()}
      />
    </Box>
  );
}
