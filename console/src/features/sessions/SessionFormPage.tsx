import { Box, Button, CircularProgress, Alert, Stack, Typography, useMediaQuery } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { MOBILE_QUERY } from '../../app/theme';
import { START_LOCK_MS } from '../runs/status';
import { toasts } from '../toasts/toast-store';
import { failureToast } from '../toasts/outcome';
import { useWorkflow } from '../workflows/queries';
import { BasePanel } from './BasePanel';
import {
  canSubmit,
  DEFAULT_RESOURCES,
  emptyForm,
  firstInvalidPlan,
  fromDetail,
  normaliseEmails,
  toBody,
  type SessionForm,
} from './form';
import { toastSessionSuccess } from './outcomes';
import { PlanPanel } from './PlanPanel';
import { PreferencesPanel, type ClusterOption } from './PreferencesPanel';
import {
  useContacts,
  useMyGroups,
  useSaveContacts,
  useSaveSession,
  useSession,
  useSessionWorkflows,
} from './queries';
import type { SessionType } from './types';
import { useTimedLock } from './useTimedLock';
import { VariablesPanel, type SandboxDefaults } from './VariablesPanel';
import { WebhookField } from './WebhookField';

const typeOfPath = (pathname: string): SessionType | null =>
  pathname.startsWith('/schedule/') ? 'schedule' : pathname.startsWith('/event/') ? 'event' : null;

/** /session/create, /schedule/{uuid}, /event/{uuid} (spec 2 §2 'Session create/edit'). */
export default function SessionFormPage() {
  const { t } = useTranslation('sessions');
  const compact = useMediaQuery(MOBILE_QUERY);
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { uuid } = useParams();
  const pathType = typeOfPath(pathname);
  const editing = Boolean(uuid && pathType);
  const detail = useSession(pathType ?? 'schedule', editing ? uuid : undefined);
  const [form, setForm] = useState<SessionForm>(emptyForm);
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const workflows = useSessionWorkflows();
  const groups = useMyGroups();
  const contacts = useContacts();
  // Spec 3's GET /cluster: the cluster managers this organization may use; the picker stays on
  // 'Any' (disabled) until it answers.
  const clusters = useQuery({
    queryKey: ['sessions', 'clusters'],
    queryFn: async (): Promise<ClusterOption[]> => await unwrap(api.GET('/cluster')),
    retry: false,
    staleTime: 60_000,
  });
  const workflow = useWorkflow(form.workflow_uuid || undefined);
  const save = useSaveSession();
  const saveContacts = useSaveContacts();
  const startLock = useTimedLock(START_LOCK_MS);
  const [starting, setStarting] = useState(false);

  // A saved session fills the form once per id (a refetch must not overwrite the user's edits).
  useEffect(() => {
    if (detail.data && pathType && loadedFor !== detail.data.uuid) {
      setForm(fromDetail(detail.data, pathType));
      setLoadedFor(detail.data.uuid);
    }
  }, [detail.data, pathType, loadedFor]);
  useEffect(() => {
    if (!editing) {
      setForm(emptyForm());
      setLoadedFor(null);
    }
  }, [editing]);

  const sandboxes: SandboxDefaults[] = useMemo(
    () => (workflow.data?.sandboxes ?? []).map((s) => ({ name: s.sandbox_name, variables: s.variables })),
    [workflow.data],
  );
  const change = (patch: Partial<SessionForm>) => setForm((f) => ({ ...f, ...patch }));
  const workflowLoading = Boolean(form.workflow_uuid) && workflow.isFetching;
  const allowed = canSubmit(form, workflowLoading);

  /** Untouched sandboxes travel with the workflow's variables and the default resources. */
  const complete = (f: SessionForm): SessionForm => ({
    ...f,
    variables: Object.fromEntries(sandboxes.map((s) => [s.name, f.variables[s.name] ?? s.variables])),
    resources: Object.fromEntries(sandboxes.map((s) => [s.name, f.resources[s.name] ?? DEFAULT_RESOURCES])),
  });

  const planOk = () => {
    if (firstInvalidPlan(form) < 0) return true;
    toasts.show({ title: t('invalidDate'), text: t('invalidPeriod'), type: 'danger' });
    return false;
  };

  /** New e-mails become contacts after the session is saved (spec 2 §5). */
  const rememberEmails = () => {
    const known = contacts.data ?? [];
    const emails = new Set(normaliseEmails(known.map((c) => c.email ?? '')));
    const fresh = normaliseEmails(form.notify ? form.emails : []).filter((e) => !emails.has(e));
    if (!fresh.length) return;
    saveContacts.mutate([...known, ...fresh.map((email) => ({ email }))]);
  };

  const onSave = () => {
    if (!planOk()) return;
    save.mutate(
      { uuid: editing ? uuid : undefined, body: toBody(complete(form), editing ? uuid : undefined) },
      {
        onSuccess: (saved) => {
          toastSessionSuccess('save');
          rememberEmails();
          if (!editing && saved) {
            setLoadedFor(saved);
            navigate(`/${form.type}/${saved}`, { replace: true });
          }
        },
        onError: (error) => toasts.show(failureToast(error, t('saveFailed'))),
      },
    );
  };

  const onStart = async () => {
    if (!planOk()) return;
    setStarting(true);
    try {
      const answer = await unwrap(
        api.POST('/session/instance', { body: toBody(complete(form), editing ? uuid : undefined) }),
      );
      toastSessionSuccess('start');
      startLock.lock();
      rememberEmails();
      if (!editing && answer?.schedule_id) {
        setLoadedFor(answer.schedule_id);
        navigate(`/${form.type}/${answer.schedule_id}`, { replace: true });
      }
    } catch (error) {
      toasts.show(failureToast(error));
    } finally {
      setStarting(false);
    }
  };

  if (editing && detail.isError)
    return (
      <Box sx={{ p: 3 }}>
        <Alert
          severity="error"
          action={<Button onClick={() => navigate('/session/list')}>{t('backToList')}</Button>}
        >
          {t('loadSessionFailed')}: {detail.error.message}
        </Alert>
      </Box>
    );
  if (editing && !detail.data)
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', p: 6 }}>
        <CircularProgress aria-label={t('loading')} />
      </Box>
    );

  return (
    <Box sx={{ p: compact ? 1.5 : 3, maxWidth: 1400, mx: 'auto' }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 2, flexWrap: 'wrap' }}>
        {/* The title keeps its line; when the buttons do not fit beside it they wrap under it. */}
        <Typography variant="h5" component="h1" sx={{ flex: '1 0 auto' }}>
          {t(editing ? 'editTitle' : 'createTitle')}
        </Typography>
        <Button variant="contained" onClick={onSave} disabled={!allowed || save.isPending}>
          {save.isPending && <CircularProgress size={16} sx={{ mr: 1 }} />}
          {t(editing ? 'update' : 'save')}
        </Button>
        <Button
          variant="outlined"
          color="success"
          onClick={() => void onStart()}
          disabled={!allowed || starting || startLock.isLocked()}
        >
          {starting && <CircularProgress size={16} sx={{ mr: 1 }} />}
          {t('startNow')}
        </Button>
      </Box>
      {form.workflow_uuid && workflow.isError && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('form.workflowFailed')}: {workflow.error.message}
        </Alert>
      )}
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: compact ? '1fr' : 'minmax(0, 1fr) minmax(0, 1fr)',
        }}
      >
        <Stack spacing={2}>
          <BasePanel
            form={form}
            editing={editing}
            workflows={workflows.data ?? []}
            groups={groups.data ?? []}
            onChange={change}
          />
          <PlanPanel
            kind={form.type}
            plans={form.type === 'schedule' ? form.schedules : form.events}
            onPlans={(plans) => change(form.type === 'schedule' ? { schedules: plans } : { events: plans })}
            webhook={
              form.type === 'event' && editing && uuid ? (
                <WebhookField session={uuid} enabled={Boolean(detail.data?.webhook)} />
              ) : undefined
            }
          />
        </Stack>
        <Stack spacing={2}>
          <VariablesPanel
            sandboxes={sandboxes}
            variables={form.variables}
            resources={form.resources}
            onVariables={(sandbox, next) => change({ variables: { ...form.variables, [sandbox]: next } })}
            onResources={(sandbox, next) => change({ resources: { ...form.resources, [sandbox]: next } })}
          />
          <PreferencesPanel
            form={form}
            contacts={(contacts.data ?? []).map((c) => c.email ?? '')}
            clusters={clusters.data}
            onChange={change}
          />
        </Stack>
      </Box>
    </Box>
  );
}
