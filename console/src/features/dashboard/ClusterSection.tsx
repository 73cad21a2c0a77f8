import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { UsagePie } from './charts';
import { ChartGrid, ChartPanel, THIRDS, type ChartState } from './ChartPanel';
import { ResourceLines } from './ResourceLines';
import { RESOURCES, toUnits, usage, type ClusterStatistics, type Resource, type Spike } from './shape';
import { StatCards } from './StatCards';

const percentOf = (ratio: number) => Math.round(ratio * 100);

/**
 * Section Cluster Managers (administrator-type roles, spec 3 §2.1): CPU, memory and disk peaks
 * of the last 24 hours, a pie per resource (red at ≥ 90 %) and a line chart per resource with
 * the capacity as its limit.
 */
export function ClusterSection({
  spike,
  spikeState,
  clusters,
  clustersState,
  hourly,
}: {
  spike: Spike | undefined;
  spikeState: ChartState;
  clusters: readonly ClusterStatistics[] | undefined;
  clustersState: ChartState;
  hourly: boolean;
}) {
  const { t } = useTranslation('dashboard');
  const unit = (resource: Resource) => t(`units.${resource}`);
  const noCapacity = spike ? RESOURCES.every((r) => spike[`max_${r}`] === 0) : false;
  const pieState: ChartState = spikeState === 'ready' && noCapacity ? 'noData' : spikeState;
  return (
    <Box component="section" aria-labelledby="dashboard-clusters" sx={{ display: 'grid', gap: 2 }}>
      <Typography id="dashboard-clusters" variant="h6" component="h2">
        {t('clusters.title')}
      </Typography>
      <StatCards
        label={t('clusters.peak')}
        cards={RESOURCES.map((resource) => ({
          key: `peak-${resource}`,
          label: `${t(`resources.${resource}`)} · ${t('clusters.peak')}`,
          value:
            spikeState === 'loading'
              ? undefined
              : spike && spikeState === 'ready'
                ? `${toUnits(resource, spike[`spike_${resource}`])} ${unit(resource)}`
                : null,
          detail:
            spike && spikeState === 'ready'
              ? t('clusters.peakOf', {
                  max: toUnits(resource, spike[`max_${resource}`]),
                  unit: unit(resource),
                })
              : undefined,
        }))}
      />
      <ChartGrid columns={THIRDS}>
        {RESOURCES.map((resource) => {
          const use = spike ? usage(spike[`total_${resource}`], spike[`max_${resource}`]) : usage(0, 0);
          return (
            <ChartPanel
              key={resource}
              title={t('clusters.usage', { resource: t(`resources.${resource}`) })}
              state={pieState}
              testId={`chart-usage-${resource}`}
              height={220}
            >
              <Box data-red={use.red} sx={{ display: 'contents' }}>
                <UsagePie
                  usage={{ ...use, used: toUnits(resource, use.used), free: toUnits(resource, use.free) }}
                  labels={{ used: t('clusters.used'), free: t('clusters.free') }}
                  percent={`${percentOf(use.ratio)} %`}
                />
              </Box>
            </ChartPanel>
          );
        })}
      </ChartGrid>
      <ResourceLines
        owners={clusters ?? []}
        limit={(cluster) => cluster.capacity}
        state={clustersState}
        title={(resource) => t('clusters.over', { resource: t(`resources.${resource}`) })}
        testId={(resource) => `chart-lines-${resource}`}
        hourly={hourly}
      />
    </Box>
  );
}
