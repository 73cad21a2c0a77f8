import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/Edit';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowUpIcon from '@mui/icons-material/KeyboardArrowUp';
import TuneIcon from '@mui/icons-material/Tune';
import VisibilityIcon from '@mui/icons-material/Visibility';
import {
  Box,
  Button,
  Checkbox,
  Chip,
  Collapse,
  IconButton,
  Stack,
  TableCell,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { ActionsCell } from '../../../components/PagedTable';
import { formatDateTime } from '../../../lib/datetime';
import { TagChips } from '../../sandboxes/TagChips';
import type { Visibility, WorkflowItem } from '../types';
import { RenameCell } from './RenameCell';
import { VisibilityControl } from './VisibilityControl';

export interface RowActions {
  onSelect: (uuid: string) => void;
  onExpand: (uuid: string) => void;
  onRename: (workflow: WorkflowItem, name: string) => void;
  onClone: (workflow: WorkflowItem) => void;
  onDelete: (workflow: WorkflowItem) => void;
  onVisibility: (workflow: WorkflowItem, visibility: Visibility) => void;
  onVariables: (workflow: WorkflowItem, sandbox: string, anchor: HTMLElement) => void;
}

/** One workflow: edit for its owner, view for anyone else; expands to visibility and variables. */
export function WorkflowRow({
  workflow,
  selected,
  expanded,
  compact,
  tagColors,
  groups,
  actions,
}: {
  workflow: WorkflowItem;
  selected: boolean;
  expanded: boolean;
  compact: boolean;
  tagColors: Map<string, string>;
  groups: { id: string; name: string }[];
  actions: RowActions;
}) {
  const { t } = useTranslation('workflows');
  const owner = workflow.user_access.owner;
  const columns = compact ? 5 : 9;
  const validity = workflow.valid === null ? 'pending' : workflow.valid ? 'valid' : 'invalid';
  return (
    <>
      <TableRow hover selected={selected} sx={{ '& > td': { borderBottom: expanded ? 'unset' : undefined } }}>
        <TableCell padding="checkbox">
          <Checkbox
            checked={selected}
            disabled={!owner}
            onChange={() => actions.onSelect(workflow.uuid)}
            slotProps={{ input: { 'aria-label': t('select', { name: workflow.name }) } }}
          />
        </TableCell>
        <TableCell>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <RenameCell
              name={workflow.name}
              editable={owner}
              onRename={(name) => actions.onRename(workflow, name)}
            />
            <Tooltip title={t(validity)}>
              <Box
                role="img"
                aria-label={t(validity)}
                sx={{
                  width: 8,
                  height: 8,
                  borderRadius: '50%',
                  flexShrink: 0,
                  bgcolor:
                    validity === 'valid'
                      ? 'success.main'
                      : validity === 'invalid'
                        ? 'error.main'
                        : 'text.disabled',
                }}
              />
            </Tooltip>
          </Stack>
        </TableCell>
        {!compact && <TableCell>{workflow.prettyOwner}</TableCell>}
        {!compact && <TableCell>{t(workflow.visibility.type)}</TableCell>}
        {!compact && (
          <TableCell>
            <TagChips labels={workflow.tags} colors={tagColors} />
          </TableCell>
        )}
        <TableCell>{workflow.version}</TableCell>
        {!compact && (
          <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(workflow.creationDate)}</TableCell>
        )}
        <ActionsCell>
          {owner ? (
            <IconButton
              size="small"
              component={RouterLink}
              to={`/workflow/edit/${workflow.uuid}`}
              aria-label={t('edit', { name: workflow.name })}
            >
              <EditIcon fontSize="small" />
            </IconButton>
          ) : (
            <IconButton
              size="small"
              component={RouterLink}
              to={`/workflow/view/${workflow.uuid}`}
              aria-label={t('view', { name: workflow.name })}
            >
              <VisibilityIcon fontSize="small" />
            </IconButton>
          )}
          <IconButton
            size="small"
            aria-label={t('clone', { name: workflow.name })}
            onClick={() => actions.onClone(workflow)}
          >
            <ContentCopyIcon fontSize="small" />
          </IconButton>
          <IconButton
            size="small"
            disabled={!owner}
            aria-label={t('delete', { name: workflow.name })}
            onClick={() => actions.onDelete(workflow)}
          >
            <DeleteOutlineIcon fontSize="small" />
          </IconButton>
        </ActionsCell>
        <TableCell padding="checkbox">
          <IconButton
            size="small"
            aria-expanded={expanded}
            aria-label={t('expand', { name: workflow.name })}
            onClick={() => actions.onExpand(workflow.uuid)}
          >
            {expanded ? <KeyboardArrowUpIcon /> : <KeyboardArrowDownIcon />}
          </IconButton>
        </TableCell>
      </TableRow>
      <TableRow>
        <TableCell colSpan={columns} sx={{ py: 0 }}>
          <Collapse in={expanded} timeout="auto" unmountOnExit>
            <Stack
              direction={{ xs: 'column', md: 'row' }}
              spacing={3}
              sx={{ py: 2 }}
              data-testid="workflow-details"
            >
              <Box sx={{ minWidth: 220 }}>
                <VisibilityControl
                  value={workflow.visibility}
                  groups={groups}
                  disabled={!owner}
                  onChange={(visibility) => actions.onVisibility(workflow, visibility)}
                />
              </Box>
              <Box sx={{ flex: 1 }}>
                <Typography variant="subtitle2" gutterBottom>
                  {t('variables')}
                </Typography>
                {workflow.sandboxes.length === 0 && (
                  <Typography color="text.secondary">{t('noSandboxes')}</Typography>
                )}
                <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
                  {workflow.sandboxes.map((sandbox) => (
                    <Button
                      key={sandbox.sandbox_name}
                      size="small"
                      variant="outlined"
                      startIcon={<TuneIcon />}
                      sx={{ textTransform: 'none' }}
                      disabled={!owner}
                      aria-label={t('variablesButton', { name: sandbox.sandbox_name })}
                      onClick={(e) => actions.onVariables(workflow, sandbox.sandbox_name, e.currentTarget)}
                    >
                      {sandbox.sandbox_name}
                      <Chip size="small" label={sandbox.variables.length} sx={{ ml: 1, height: 18 }} />
                    </Button>
                  ))}
                </Stack>
              </Box>
            </Stack>
          </Collapse>
        </TableCell>
      </TableRow>
    </>
  );
}
