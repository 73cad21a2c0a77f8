import { Alert, Box, Button, CircularProgress, useMediaQuery } from '@mui/material';
import { ReactFlowProvider } from '@xyflow/react';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { useMe } from '../../api/queries';
import { MOBILE_QUERY } from '../../app/theme';
import { DEFAULT_VERSION, EMPTY_GRAPH } from './graph/model';
import { graphOf } from './graph/saved';
import { useWorkflow } from './queries';
import { WorkflowEditor } from './WorkflowEditor';

/** /workflow/create and /workflow/{action}/{uuid}: view is read-only, as is a phone (≤ 574 px). */
export default function WorkflowEditorPage() {
  const { t } = useTranslation('workflows');
  const { action, uuid } = useParams();
  const navigate = useNavigate();
  const phone = useMediaQuery(MOBILE_QUERY);
  const me = useMe();
  const workflow = useWorkflow(uuid);
  const saved = workflow.data;
  const initialGraph = useMemo(() => (saved ? graphOf(saved) : EMPTY_GRAPH), [saved]);

  if (uuid && workflow.isError)
    return (
      <Box sx={{ p: 3 }}>
        <Alert
          severity="error"
          action={<Button onClick={() => navigate('/workflow/list')}>{t('backToList')}</Button>}
        >
          {t('notFound')}: {workflow.error.message}
        </Alert>
      </Box>
    );
  if ((uuid && !saved) || !me.data)
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', p: 6 }}>
        <CircularProgress aria-label={t('loading')} />
      </Box>
    );

  const owner = !saved || saved.user_access.owner || saved.user_access.write;
  const readOnly = phone || action === 'view' || !owner;
  return (
    <ReactFlowProvider>
      <WorkflowEditor
        // After a first save the edit route starts again from what the server saved.
        key={saved?.uuid ?? 'new'}
        uuid={saved?.uuid}
        initialMeta={{
          name: saved?.name ?? '',
          version: saved?.version ?? DEFAULT_VERSION,
          tags: saved?.tags ?? [],
        }}
        initialGraph={initialGraph}
        readOnly={readOnly}
        compact={phone}
        meId={me.data.id}
      />
    </ReactFlowProvider>
  );
}
