import { Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/queries';
import type { Role } from '../../api/answers';
import { Forbidden } from './Forbidden';
import { SectionSpinner } from './SectionFallback';
import { SettingsLayout } from './SettingsLayout';
import { useSelectedSection } from './useSelectedSection';

/**
 * One settings screen: refused to roles outside `roles` (spec 3 §6), otherwise a sidebar of
 * `sections` (labels under `<labels>.<id>` in settings.json) chosen by `?<param>=`.
 */
export function SettingsScreen({
  title,
  roles,
  param,
  labels,
  sections,
}: {
  title: string;
  roles: readonly Role[];
  param: string;
  labels: string;
  sections: readonly { id: string; Component: LazyExoticComponent<ComponentType> }[];
}) {
  const { t } = useTranslation('settings');
  const me = useMe();
  const [selected, select] = useSelectedSection(
    param,
    sections.map((s) => s.id),
  );
  if (me.isPending) return <SectionSpinner />;
  if (!me.data?.role || !roles.includes(me.data.role)) return <Forbidden />;
  const Section = sections.find((s) => s.id === selected)!.Component;
  return (
    <SettingsLayout
      title={title}
      sections={sections.map((s) => ({ id: s.id, label: t(`${labels}.${s.id}`) }))}
      selected={selected}
      onSelect={select}
    >
      <Suspense fallback={<SectionSpinner />}>
        <Section key={selected} />
      </Suspense>
    </SettingsLayout>
  );
}
