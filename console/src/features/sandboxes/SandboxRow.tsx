import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/Edit';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowUpIcon from '@mui/icons-material/KeyboardArrowUp';
import TuneIcon from '@mui/icons-material/Tune';
import VisibilityIcon from '@mui/icons-material/Visibility';
import {
  Box,
  Checkbox,
  Collapse,
  IconButton,
  Link,
  TableCell,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { ActionsCell } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/datetime';
import { RenameField } from './RenameField';
import { sandboxRights } from './rules';
import { TagChips } from './TagChips';
import type { Sandbox } from './types';

export interface RowActions {
  onSelect: (uuid: string) => void;
  onRename: (sandbox: Sandbox, name: string) => void;
  onVariables: (sandbox: Sandbox, anchor: HTMLElement) => void;
  onClone: (sandbox: Sandbox) => void;
  onDelete: (sandbox: Sandbox) => void;
}

/** One sandbox: select, expand, inline rename and the actions its caller may take (spec 1 §6). */
export function SandboxRow({
  sandbox,
  selected,
  compact,
  tagColors,
  actions,
}: {
  sandbox: Sandbox;
  selected: boolean;
  compact: boolean;
  tagColors: Map<string, string>;
  actions: RowActions;
}) {
  const { t } = useTranslation('sandboxes');
  const [open, setOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const rights = sandboxRights(sandbox);
  const columns = compact ? 5 : 9;
  const action = rights.edit ? 'edit' : 'view';

  return (
    <>
      <TableRow
        hover
        selected={selected}
        data-testid="sandbox-row"
        sx={{ '& > td': { borderBottom: open ? 0 : undefined } }}
      >
        <TableCell padding="checkbox">
          {rights.owner && (
            <Checkbox
              checked={selected}
              onChange={() => actions.onSelect(sandbox.uuid)}
              slotProps={{ input: { 'aria-label': t('select', { name: sandbox.name }) } }}
            />
          )}
        </TableCell>
        <TableCell padding="checkbox">
          <IconButton
            size="small"
            aria-label={t(open ? 'collapse' : 'expand')}
            aria-expanded={open}
            onClick={() => setOpen(!open)}
          >
            {open ? <KeyboardArrowUpIcon /> : <KeyboardArrowDownIcon />}
          </IconButton>
        </TableCell>
        <TableCell>
          {renaming ? (
            <RenameField
              name={sandbox.name}
              onRename={(name) => actions.onRename(sandbox, name)}
              onDone={() => setRenaming(false)}
            />
          ) : rights.owner ? (
            <Tooltip title={t('renameHint')} describeChild>
              <Link
                component="button"
                underline="hover"
                color="inherit"
                onClick={() => setRenaming(true)}
                sx={{ fontWeight: 500 }}
              >
                {sandbox.name}
              </Link>
            </Tooltip>
          ) : (
            <Typography component="span" sx={{ fontWeight: 500 }}>
              {sandbox.name}
            </Typography>
          )}
        </TableCell>
        <TableCell>{sandbox.version}</TableCell>
        {!compact && <TableCell>{sandbox.author}</TableCell>}
        {!compact && <TableCell>{sandbox.architecture}</TableCell>}
        {!compact && (
          <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(sandbox.creation_date)}</TableCell>
        )}
        {!compact && (
          <TableCell>
            <TagChips labels={sandbox.tags} colors={tagColors} />
          </TableCell>
        )}
        <ActionsCell>
          <Tooltip title={t(action)}>
            <IconButton
              component={RouterLink}
              to={`/sandbox/${action}/${sandbox.uuid}`}
              aria-label={`${t(action)} ${sandbox.name}`}
            >
              {rights.edit ? <EditIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
            </IconButton>
          </Tooltip>
          {rights.owner && (
            <Tooltip title={t('variables')}>
              <IconButton
                size="small"
                aria-label={t('variablesOf', { name: sandbox.name })}
                onClick={(e) => actions.onVariables(sandbox, e.currentTarget)}
              >
                <TuneIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          )}
          <Tooltip title={t('clone')}>
            <span>
              <IconButton
                size="small"
                aria-label={`${t('clone')} ${sandbox.name}`}
                disabled={!rights.clone}
                onClick={() => actions.onClone(sandbox)}
              >
                <ContentCopyIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
          {rights.owner && (
            <Tooltip title={t('delete')}>
              <IconButton
                size="small"
                aria-label={`${t('delete')} ${sandbox.name}`}
                onClick={() => actions.onDelete(sandbox)}
              >
                <DeleteOutlineIcon />
              </IconButton>
            </Tooltip>
          )}
        </ActionsCell>
      </TableRow>
      <TableRow>
        <TableCell colSpan={columns} sx={{ py: 0, borderBottom: open ? undefined : 0 }}>
          <Collapse in={open} unmountOnExit>
            <Box sx={{ py: 1.5 }} data-testid="description">
              {compact && <TagChips labels={sandbox.tags} colors={tagColors} />}
              <Typography
                variant="body2"
                color="text.secondary"
                sx={{ whiteSpace: 'pre-wrap', mt: compact ? 1 : 0 }}
              >
                {sandbox.description || t('noDescription')}
              </Typography>
              {compact && (
                <Typography variant="caption" color="text.secondary">
                  {sandbox.author} · {sandbox.architecture} · {formatDateTime(sandbox.creation_date)}
                </Typography>
              )}
            </Box>
          </Collapse>
        </TableCell>
      </TableRow>
    </>
  );
}
