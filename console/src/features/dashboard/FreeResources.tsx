import { Table, TableBody, TableCell, TableContainer, TableHead, TableRow } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ChartPanel, type ChartState } from './ChartPanel';
import { RESOURCES, toUnits, type FreeResources as Free } from './shape';

/** The caller's free resources per group (non-admin roles, spec 3 §2.1). */
export function FreeResources({ free, state }: { free: readonly Free[] | undefined; state: ChartState }) {
  const { t } = useTranslation('dashboard');
  return (
    <ChartPanel title={t('free.title')} state={state} testId="free-resources" height={120}>
      <TableContainer>
        <Table size="small" aria-label={t('free.title')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('free.group')}</TableCell>
              {RESOURCES.map((resource) => (
                <TableCell key={resource} align="right">
                  {`${t(`resources.${resource}`)} (${t(`units.${resource}`)})`}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {(free ?? []).length === 0 ? (
              <TableRow>
                <TableCell colSpan={4} align="center" sx={{ color: 'text.secondary' }}>
                  {t('states.noTableData')}
                </TableCell>
              </TableRow>
            ) : (
              (free ?? []).map((group) => (
                <TableRow key={group.id}>
                  <TableCell>{group.name}</TableCell>
                  {RESOURCES.map((resource) => (
                    <TableCell key={resource} align="right">
                      {toUnits(resource, group[resource])}
                    </TableCell>
                  ))}
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
      </TableContainer>
    </ChartPanel>
  );
}
