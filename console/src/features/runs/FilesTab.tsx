import {
  Alert,
  Box,
  CircularProgress,
  Link,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { PagedTableFooter, usePaging } from '../../components/PagedTableFooter';
import type { RunFile } from '../sessions/types';
import { formatRunDate, formatSize } from './format';
import { fileDownloadUrl } from './logSocket';

/** Spec 2 §9: the file table's page sizes. */
export const FILE_PAGE_SIZES = [5, 10, 20] as const;

/** Files tab (spec 2 §2): the run's output files, optionally of one sandbox, with their download links. */
export function FilesTab({
  run,
  files,
  loading,
  error,
  sandboxFilter,
  sandboxIdOf,
  compact,
}: {
  run: string;
  files: RunFile[] | undefined;
  loading: boolean;
  error?: string;
  /** Only this sandbox's files (from the node's 'Show files'), or every file. */
  sandboxFilter: string | null;
  sandboxIdOf: (sandbox: string) => string;
  compact: boolean;
}) {
  const { t } = useTranslation('runs');
  const paging = usePaging(FILE_PAGE_SIZES);
  if (error && !files)
    return (
      <Alert severity="error">
        {t('filesFailed')}: {error}
      </Alert>
    );
  if (!files)
    return loading ? (
      <Box sx={{ display: 'grid', placeItems: 'center', p: 3 }}>
        <CircularProgress aria-label={t('loading')} />
      </Box>
    ) : null;
  const rows = sandboxFilter
    ? files.filter((f) => f.sandbox.replace(/\(\d+\)$/, '') === sandboxFilter)
    : files;
  if (rows.length === 0)
    return (
      <Typography color="text.secondary" sx={{ p: 2 }}>
        {t(sandboxFilter ? 'noFilesOf' : 'noFiles', { sandbox: sandboxFilter })}
      </Typography>
    );
  const paged = paging.of(rows);
  return (
    <>
      {sandboxFilter && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {t('filesOf', { sandbox: sandboxFilter })}
        </Typography>
      )}
      <TableContainer>
        <Table size="small" aria-label={t('files')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('fileColumns.name')}</TableCell>
              <TableCell>{t('fileColumns.sandbox')}</TableCell>
              <TableCell align="right">{t('fileColumns.size')}</TableCell>
              {!compact && <TableCell>{t('fileColumns.created')}</TableCell>}
            </TableRow>
          </TableHead>
          <TableBody>
            {paged.rows.map((f) => (
              <TableRow key={`${f.sandbox}/${f.path || f.name}`} data-testid="file-row">
                <TableCell sx={{ wordBreak: 'break-all' }}>
                  <Link href={fileDownloadUrl(run, sandboxIdOf(f.sandbox), f.sandbox, f.name)} download>
                    {f.name}
                  </Link>
                </TableCell>
                <TableCell>{f.sandbox}</TableCell>
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  {formatSize(f.size)}
                </TableCell>
                {!compact && <TableCell>{formatRunDate(f.creation_time)}</TableCell>}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <PagedTableFooter {...paged.footer} />
    </>
  );
}
