import { Alert, Box, CircularProgress } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Navigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useMe } from '../../api/queries';
import { useSandbox } from './queries';
import { sandboxRights } from './rules';
import { SandboxEditor } from './SandboxEditor';

/**
 * /sandbox/create, /sandbox/edit/{uuid} and /sandbox/view/{uuid} (spec 1 §2.8). Editing is for
 * the owner and those with write permission; others get the view page (spec 1 §6).
 */
export default function SandboxPage() {
  const { t } = useTranslation('sandboxes');
  const { action, uuid } = useParams();
  const me = useMe();
  const sandbox = useSandbox(uuid);
  if (uuid && action !== 'edit' && action !== 'view') return <Navigate to="/sandbox/list" replace />;
  if (!me.data || (uuid && sandbox.isPending))
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 8 }}>
        <CircularProgress aria-label={t('loading', { ns: 'common' })} />
      </Box>
    );
  if (uuid && sandbox.isError)
    return (
      <Alert severity="error" sx={{ m: 3 }}>
        {sandbox.error instanceof ApiError && sandbox.error.status === 404
          ? t('notFound')
          : sandbox.error.message}
      </Alert>
    );
  const loaded = uuid ? (sandbox.data ?? null) : null;
  if (loaded && action === 'edit' && !sandboxRights(loaded).edit)
    return <Navigate to={`/sandbox/view/${loaded.uuid}`} replace />;
  return <SandboxEditor key={uuid ?? 'new'} me={me.data} sandbox={loaded} viewOnly={action === 'view'} />;
}
