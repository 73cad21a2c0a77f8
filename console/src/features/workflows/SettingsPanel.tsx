import AddIcon from '@mui/icons-material/Add';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import {
  Box,
  Button,
  Checkbox,
  FormControlLabel,
  IconButton,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { updateEdge } from './graph/edges';
import { nodeName, updateNode } from './graph/items';
import type { Graph, GraphEdge, GraphNode, Variable } from './graph/model';
import { useDebouncedCommit } from './useDebouncedCommit';
import type { Selection } from './useEditorState';

/** The Settings of the selected sandbox or arrow, applied 500 ms after typing stops. */
export function SettingsPanel({
  graph,
  selection,
  readOnly,
  change,
  onClose,
}: {
  graph: Graph;
  selection: Exclude<Selection, null>;
  readOnly: boolean;
  change: (fn: (graph: Graph) => Graph) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('workflows');
  const node = graph.nodes.find((n) => n.id === selection.id);
  const edge = graph.edges.find((e) => e.id === selection.id);
  return (
    <Box
      role="region"
      aria-label={t(node ? 'nodeSettings' : 'edgeSettings')}
      sx={{ p: 2, width: { xs: '100%', sm: 320 }, overflowY: 'auto', height: '100%' }}
    >
      <Stack direction="row" sx={{ alignItems: 'center', mb: 1 }}>
        <Typography variant="subtitle1" sx={{ flex: 1 }}>
          {t(node ? 'nodeSettings' : 'edgeSettings')}
        </Typography>
        <IconButton aria-label={t('close')} onClick={onClose}>
          <CloseIcon />
        </IconButton>
      </Stack>
      {node && <NodeForm key={node.id} node={node} readOnly={readOnly} change={change} />}
      {edge && <EdgeForm key={edge.id} edge={edge} readOnly={readOnly} change={change} />}
    </Box>
  );
}

function NodeForm({
  node,
  readOnly,
  change,
}: {
  node: GraphNode;
  readOnly: boolean;
  change: (fn: (graph: Graph) => Graph) => void;
}) {
  const { t } = useTranslation('workflows');
  const [form, setForm] = useDebouncedCommit(
    node,
    (n) => ({ name: n.name, continueOnFail: n.continueOnFail, variables: n.variables }),
    (value) => change((g) => updateNode(g, node.id, value)),
  );
  const setVariable = (index: number, patch: Partial<Variable>) =>
    setForm({ ...form, variables: form.variables.map((v, i) => (i === index ? { ...v, ...patch } : v)) });
  return (
    <Stack spacing={1.5}>
      <TextField
        size="small"
        label={t('nodeName')}
        value={form.name}
        disabled={readOnly}
        onChange={(e) => setForm({ ...form, name: nodeName(e.target.value) })}
      />
      <FormControlLabel
        control={
          <Checkbox
            checked={form.continueOnFail}
            disabled={readOnly}
            onChange={(e) => setForm({ ...form, continueOnFail: e.target.checked })}
          />
        }
        label={t('continueOnFail')}
      />
      <Typography variant="subtitle2">{t('variables')}</Typography>
      {form.variables.map((variable, index) => (
        <Stack key={index} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <TextField
            size="small"
            label={t('variableName')}
            value={variable.name}
            disabled={readOnly}
            onChange={(e) => setVariable(index, { name: e.target.value })}
          />
          <TextField
            size="small"
            label={t('variableValue')}
            value={variable.value}
            disabled={readOnly}
            error={variable.name.trim() !== '' && variable.value.trim() === ''}
            onChange={(e) => setVariable(index, { value: e.target.value })}
          />
          <IconButton
            aria-label={t('removeVariable')}
            disabled={readOnly}
            onClick={() => setForm({ ...form, variables: form.variables.filter((_v, i) => i !== index) })}
          >
            <DeleteOutlineIcon />
          </IconButton>
        </Stack>
      ))}
      {!readOnly && (
        <Button
          startIcon={<AddIcon />}
          sx={{ alignSelf: 'flex-start' }}
          onClick={() => setForm({ ...form, variables: [...form.variables, { name: '', value: '' }] })}
        >
          {t('addVariable')}
        </Button>
      )}
    </Stack>
  );
}

function EdgeForm({
  edge,
  readOnly,
  change,
}: {
  edge: GraphEdge;
  readOnly: boolean;
  change: (fn: (graph: Graph) => Graph) => void;
}) {
  const { t } = useTranslation('workflows');
  const [form, setForm] = useDebouncedCommit(
    edge,
    (e) => ({
      switchCondition: e.switchCondition,
      instanceType: e.instanceType,
      instanceInput: e.instanceInput ?? '',
      instanceNumber: e.instanceNumber ?? 1,
    }),
    (value) =>
      change((g) =>
        updateEdge(
          g,
          edge.id,
          edge.type === 'switchOutput'
            ? { switchCondition: value.switchCondition }
            : edge.type === 'multi'
              ? {
                  instanceType: value.instanceType,
                  instanceInput: value.instanceInput,
                  instanceNumber: Math.max(1, Math.floor(value.instanceNumber) || 1),
                }
              : {},
        ),
      ),
  );
  return (
    <Stack spacing={1.5}>
      <Typography color="text.secondary">{t(`edgeType.${edge.type}`)}</Typography>
      {edge.type === 'switchOutput' && (
        <TextField
          select
          size="small"
          label={t('switchCondition')}
          value={form.switchCondition ?? 'success'}
          disabled={readOnly}
          onChange={(e) => setForm({ ...form, switchCondition: e.target.value as 'success' | 'fail' })}
        >
          <MenuItem value="success">{t('conditionSuccess')}</MenuItem>
          <MenuItem value="fail">{t('conditionFail')}</MenuItem>
        </TextField>
      )}
      {edge.type === 'multi' && (
        <>
          <TextField
            select
            size="small"
            label={t('instanceType')}
            value={form.instanceType ?? 'line'}
            disabled={readOnly}
            onChange={(e) => setForm({ ...form, instanceType: e.target.value as 'line' | 'file' })}
          >
            <MenuItem value="line">{t('instanceLine')}</MenuItem>
            <MenuItem value="file">{t('instanceFile')}</MenuItem>
          </TextField>
          <TextField
            size="small"
            label={t('instanceInput')}
            value={form.instanceInput}
            disabled={readOnly}
            onChange={(e) => setForm({ ...form, instanceInput: e.target.value })}
          />
          <TextField
            size="small"
            type="number"
            label={t('instanceNumber')}
            value={form.instanceNumber}
            disabled={readOnly}
            slotProps={{ htmlInput: { min: 1, step: 1 } }}
            onChange={(e) => setForm({ ...form, instanceNumber: Number(e.target.value) })}
          />
        </>
      )}
    </Stack>
  );
}
