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
  TablePagination,
  TableRow,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
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
  const [page, setPage] = useState(0);
  const [size, setSize] = useState<number>(FILE_PAGE_SIZES[0]);
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
  const last = Math.max(0, Math.ceil(rows.length / size) - 1);
  const current = Math.min(page, last);
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
            {rows.slice(current * size, (current + 1) * size).map((f) => (
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
      <TablePagination
        component="div"
        count={rows.length}
        page={current}
        rowsPerPage={size}
        rowsPerPageOptions={[...FILE_PAGE_SIZES]}
        labelRowsPerPage={t('rowsPerPage')}
        onPageChange={(_e, p) => setPage(p)}
        onRowsPerPageChange={(e) => {
          setSize(Number(e.target.value));
          setPage(0);
        }}
      />
    </>
  );
}
