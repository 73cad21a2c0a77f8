import DownloadOutlined from '@mui/icons-material/DownloadOutlined';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  CircularProgress,
  LinearProgress,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/queries';
import { PagedTableFooter, usePaging } from '../../components/PagedTableFooter';
import { formatDateTime } from '../../lib/datetime';
import { formatDollars, formatDuration, formatExactDollars, machineSize } from './format';
import {
  BILLING_CSV_URL,
  BILLING_PAGE_SIZES,
  DEFAULT_PAGE_SIZE,
  useBilling,
  type BillingPage as BillingAnswer,
  type BillingPageSize,
} from './queries';

/** Per-session totals page in the browser (the route gives them all at once). */
const SESSION_PAGE_SIZES = [10, 20, 50];
const ADMIN_TYPES = new Set(['admin', 'organization_admin']);

/** A titled table in an outlined paper that scrolls sideways on its own on a narrow screen. */
function Section({ title, label, children }: { title: string; label: string; children: ReactNode }) {
  return (
    <Box component="section" aria-label={label}>
      <Typography variant="h6" component="h2" gutterBottom>
        {title}
      </Typography>
      <TableContainer component={Paper} variant="outlined">
        {children}
      </TableContainer>
    </Box>
  );
}

function EmptyRow({ columns, text }: { columns: number; text: string }) {
  return (
    <TableRow>
      <TableCell colSpan={columns} align="center" sx={{ py: 4, color: 'text.secondary' }}>
        {text}
      </TableCell>
    </TableRow>
  );
}

/** The amount rounded to the cent, with the exact amount in its tooltip. */
function Amount({ nano, language }: { nano: string; language: string }) {
  const { t } = useTranslation('billing');
  return (
    <span title={t('exactly', { amount: formatExactDollars(nano, language) })}>
      {formatDollars(nano, language)}
    </span>
  );
}

function Totals({ data, language }: { data: BillingAnswer; language: string }) {
  const { t } = useTranslation('billing');
  const paged = usePaging(SESSION_PAGE_SIZES).of(data.sessions);
  return (
    <Section title={t('sessions.title')} label={t('sessions.title')}>
      <Table size="small" aria-label={t('sessions.title')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('sessions.columns.session')}</TableCell>
            <TableCell align="right">{t('sessions.columns.records')}</TableCell>
            <TableCell align="right">{t('sessions.columns.executionTime')}</TableCell>
            <TableCell align="right">{t('sessions.columns.amount')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {data.sessions.length === 0 && <EmptyRow columns={4} text={t('noData')} />}
          {paged.rows.map((s) => (
            <TableRow key={s.session} hover>
              <TableCell sx={{ wordBreak: 'break-word' }}>{s.session_name || s.session}</TableCell>
              <TableCell align="right">{s.records}</TableCell>
              <TableCell align="right">{formatDuration(s.execution_time)}</TableCell>
              <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                <Amount nano={s.amount_nano} language={language} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {data.sessions.length > SESSION_PAGE_SIZES[0]! && <PagedTableFooter {...paged.footer} />}
    </Section>
  );
}

function Records({
  data,
  language,
  fetching,
  onPage,
  onSize,
}: {
  data: BillingAnswer;
  language: string;
  fetching: boolean;
  onPage: (page: number) => void;
  onSize: (size: BillingPageSize) => void;
}) {
  const { t } = useTranslation('billing');
  const columns = ['date', 'session', 'run', 'sandbox', 'status', 'machine', 'executionTime', 'amount'];
  const right = new Set(['executionTime', 'amount']);
  // Below md the run, status and machine give way, so the amounts stay in view (574 px).
  const wide = new Set(['run', 'status', 'machine']);
  const cell = (c: string) => ({
    whiteSpace: 'nowrap',
    ...(wide.has(c) && { display: { xs: 'none', md: 'table-cell' } }),
  });
  return (
    <Section title={t('records.title')} label={t('records.title')}>
      {fetching ? <LinearProgress aria-label={t('loading')} /> : <Box sx={{ height: 4 }} />}
      <Table size="small" aria-label={t('records.title')}>
        <TableHead>
          <TableRow>
            {columns.map((c) => (
              <TableCell key={c} align={right.has(c) ? 'right' : 'left'} sx={cell(c)}>
                {t(`records.columns.${c}`)}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {data.records.length === 0 && <EmptyRow columns={columns.length} text={t('noData')} />}
          {data.records.map((r) => {
            const machine = machineSize(r.machine);
            return (
              <TableRow key={r._id} hover>
                <TableCell sx={cell('date')}>{formatDateTime(r.timestamp)}</TableCell>
                <TableCell>{r.session_name || r.session}</TableCell>
                <TableCell sx={cell('run')}>{r.run}</TableCell>
                <TableCell>{r.sandbox_name}</TableCell>
                <TableCell sx={cell('status')}>{r.status}</TableCell>
                <TableCell sx={cell('machine')}>
                  {t('machine', { cpu: machine.cpu, memory: machine.memory })}
                </TableCell>
                <TableCell align="right" sx={cell('executionTime')}>
                  {formatDuration(r.execution_time)}
                </TableCell>
                <TableCell align="right" sx={cell('amount')}>
                  <Amount nano={r.amount_nano} language={language} />
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <PagedTableFooter
        count={data.total}
        page={data.total === 0 ? 0 : data.page}
        size={data.page_size}
        sizes={BILLING_PAGE_SIZES}
        onPage={onPage}
        onSize={(size) => onSize(size as BillingPageSize)}
      />
    </Section>
  );
}

/**
 * /billing (spec 2 §2 Billing page): the raw billing records, one per step execution, paged
 * by the server, and the per-session totals, with the overall total and a CSV download of
 * every record. Administrator-type roles see the current organization's records, other roles
 * their own (the route decides). Amounts are dollars rounded to the cent, exact on hover.
 */
export default function BillingPage() {
  const { t, i18n } = useTranslation('billing');
  const me = useMe();
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState<BillingPageSize>(DEFAULT_PAGE_SIZE);
  const billing = useBilling(me.data ? me.data.current_organization : undefined, page, pageSize);
  const language = i18n.language;
  const data = billing.data;
  // The records may have shrunk under the page shown (another tab, a deletion): go back.
  const lastPage = data ? Math.max(0, Math.ceil(data.total / data.page_size) - 1) : 0;
  if (data && !billing.isPlaceholderData && page > lastPage) setPage(lastPage);
  const admin = ADMIN_TYPES.has(me.data?.role ?? '');
  const failed = me.isError || (billing.isError && !data);

  return (
    <Box sx={{ p: { xs: 2, sm: 4 }, maxWidth: 1280, mx: 'auto' }}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between', mb: 1 }}
      >
        <Typography variant="h5" component="h1">
          {t('title')}
        </Typography>
        {data && data.total > 0 ? (
          <Button
            variant="outlined"
            component="a"
            href={BILLING_CSV_URL}
            download="billing.csv"
            startIcon={<DownloadOutlined />}
            sx={{ alignSelf: { xs: 'flex-start', sm: 'auto' } }}
          >
            {t('downloadCsv')}
          </Button>
        ) : (
          // Nothing to download yet: a plain disabled button, not a link.
          <Button
            variant="outlined"
            disabled
            startIcon={<DownloadOutlined />}
            sx={{ alignSelf: { xs: 'flex-start', sm: 'auto' } }}
          >
            {t('downloadCsv')}
          </Button>
        )}
      </Stack>
      {me.data && (
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {t(admin ? 'scope.organization' : 'scope.own')}
        </Typography>
      )}
      {me.data && !me.data.current_organization ? (
        <Alert severity="info">{t('noOrganization')}</Alert>
      ) : failed ? (
        <Alert
          severity="error"
          action={
            <Button
              color="inherit"
              size="small"
              onClick={() => void (me.isError ? me.refetch() : billing.refetch())}
            >
              {t('retry')}
            </Button>
          }
        >
          <AlertTitle>{t('requestFailed', { ns: 'common' })}</AlertTitle>
          {t('somethingWentWrong', { ns: 'common' })}
        </Alert>
      ) : billing.isPending ? (
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
          <CircularProgress aria-label={t('loading')} />
        </Box>
      ) : data ? (
        <Stack spacing={4}>
          <Paper variant="outlined" sx={{ p: 2 }} aria-label={t('total')} component="section">
            <Typography variant="overline" color="text.secondary">
              {t('total')}
            </Typography>
            <Typography variant="h4" component="p" data-testid="billing-total">
              <Amount nano={data.amount_nano} language={language} />
            </Typography>
            <Typography color="text.secondary">
              {t('records', { count: data.total })} · {t('sessionCount', { count: data.sessions.length })}
            </Typography>
            <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
              {t('rounding')}
            </Typography>
          </Paper>
          <Totals data={data} language={language} />
          <Records
            data={data}
            language={language}
            fetching={billing.isFetching && billing.isPlaceholderData}
            onPage={setPage}
            onSize={(size) => {
              setPageSize(size);
              setPage(0);
            }}
          />
        </Stack>
      ) : null}
    </Box>
  );
}
