import { useTranslation } from 'react-i18next';
import { LimitLines } from './charts';
import { ChartGrid, ChartPanel, THIRDS, type ChartState } from './ChartPanel';
import { limitOf, mergeSeries, RESOURCES, type Resource } from './shape';

/** Something drawn as a line per resource: a cluster manager, a group. */
export interface LineOwner {
  id: string;
  name: string;
  cpu: { x: string; y: number }[];
  memory: { x: string; y: number }[];
  disk: { x: string; y: number }[];
}

/**
 * A line chart per resource (CPU, memory, disk), three abreast from lg: a line per owner, and
 * the owners' limits summed as the dashed limit line. A chart whose owners have no sample for
 * its resource says so ('noData') when `state` is 'ready'.
 */
export function ResourceLines<T extends LineOwner>({
  owners,
  limit,
  state,
  title,
  testId,
  hourly,
}: {
  owners: readonly T[];
  /** An owner's part of the limit (a cluster's capacity, a group's quota). */
  limit: (owner: T) => Record<Resource, number>;
  state: ChartState;
  title: (resource: Resource) => string;
  testId: (resource: Resource) => string;
  /** Points per hour (ranges up to 3 days) rather than per day. */
  hourly: boolean;
}) {
  const { t } = useTranslation('dashboard');
  const series = owners.map((owner) => ({ key: owner.id, label: owner.name }));
  const limits = owners.map(limit);
  return (
    <ChartGrid columns={THIRDS} from="lg">
      {RESOURCES.map((resource) => (
        <ChartPanel
          key={resource}
          title={title(resource)}
          state={
            state === 'ready' && owners.every((owner) => owner[resource].length === 0) ? 'noData' : state
          }
          testId={testId(resource)}
        >
          <LimitLines
            rows={mergeSeries(owners, resource)}
            series={series}
            limit={limitOf(resource, limits)}
            limitLabel={t('clusters.limit')}
            unit={t(`units.${resource}`)}
            hourly={hourly}
          />
        </ChartPanel>
      ))}
    </ChartGrid>
  );
}
