import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import RestoreIcon from '@mui/icons-material/Restore';
import { Box, Button, IconButton, Paper, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_RESOURCES, RESOURCE_RULES, resourceValid, type ResourceKind } from './form';
import type { NamedVariable, Resources } from './types';

export interface SandboxDefaults {
  name: string;
  variables: NamedVariable[];
}

/** Per-sandbox variables (key/value rows, add, delete, Restore Variables) and resources (spec 2 §2). */
export function VariablesPanel({
  sandboxes,
  variables,
  resources,
  onVariables,
  onResources,
}: {
  sandboxes: SandboxDefaults[];
  variables: Record<string, NamedVariable[]>;
  resources: Record<string, Resources>;
  onVariables: (sandbox: string, next: NamedVariable[]) => void;
  onResources: (sandbox: string, next: Resources) => void;
}) {
  const { t } = useTranslation('sessions');
  const [tab, setTab] = useState(0);
  if (sandboxes.length === 0)
    return (
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography variant="subtitle1" component="h2">
          {t('form.variables')}
        </Typography>
        <Typography color="text.secondary" variant="body2">
          {t('form.chooseWorkflow')}
        </Typography>
      </Paper>
    );
  const current = sandboxes[Math.min(tab, sandboxes.length - 1)]!;
  const rows = variables[current.name] ?? current.variables;
  const res = resources[current.name] ?? DEFAULT_RESOURCES;
  const set = (index: number, patch: Partial<NamedVariable>) =>
    onVariables(
      current.name,
      rows.map((v, i) => (i === index ? { ...v, ...patch } : v)),
    );
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h2">
        {t('form.variables')}
      </Typography>
      <Tabs
        value={Math.min(tab, sandboxes.length - 1)}
        onChange={(_e, v: number) => setTab(v)}
        variant="scrollable"
        scrollButtons="auto"
        sx={{ mb: 1 }}
      >
        {sandboxes.map((s) => (
          <Tab key={s.name} label={s.name} sx={{ textTransform: 'none' }} />
        ))}
      </Tabs>
      <Stack spacing={1}>
        {rows.map((v, i) => (
          <Box key={i} sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
            <TextField
              size="small"
              label={t('form.key')}
              value={v.name}
              onChange={(e) => set(i, { name: e.target.value })}
              sx={{ flex: 1 }}
            />
            <TextField
              size="small"
              label={t('form.value')}
              value={v.value}
              onChange={(e) => set(i, { value: e.target.value })}
              sx={{ flex: 2 }}
            />
            <IconButton
              aria-label={t('form.deleteVariable')}
              onClick={() =>
                onVariables(
                  current.name,
                  rows.filter((_v, j) => j !== i),
                )
              }
            >
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Box>
        ))}
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button
            startIcon={<AddIcon />}
            onClick={() => onVariables(current.name, [...rows, { name: '', value: '' }])}
          >
            {t('form.addVariable')}
          </Button>
          <Button startIcon={<RestoreIcon />} onClick={() => onVariables(current.name, current.variables)}>
            {t('form.restoreVariables')}
          </Button>
        </Box>
      </Stack>
      <Typography variant="subtitle2" sx={{ mt: 2, mb: 1 }}>
        {t('form.resources')}
      </Typography>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        {(Object.keys(RESOURCE_RULES) as ResourceKind[]).map((kind) => {
          const valid = resourceValid(kind, res[kind]);
          return (
            <TextField
              key={kind}
              size="small"
              type="number"
              label={t(`form.${kind}`)}
              value={Number.isNaN(res[kind]) ? '' : res[kind]}
              error={!valid}
              helperText={valid ? undefined : t('form.stepError', RESOURCE_RULES[kind])}
              onChange={(e) =>
                onResources(current.name, {
                  ...res,
                  [kind]: e.target.value === '' ? NaN : Number(e.target.value),
                })
              }
              slotProps={{ htmlInput: { step: RESOURCE_RULES[kind].step, min: RESOURCE_RULES[kind].min } }}
              sx={{ width: 150 }}
            />
          );
        })}
      </Box>
    </Paper>
  );
}
