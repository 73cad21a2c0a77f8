import { Alert } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SectionSpinner } from '../SectionFallback';

/** A spinner while any query loads, the first failure's message, else the content. */
export function Loaded({
  queries,
  children,
}: {
  queries: readonly { isPending: boolean; error: Error | null }[];
  children: () => ReactNode;
}) {
  const { t } = useTranslation();
  const failed = queries.find((q) => q.error);
  if (failed) return <Alert severity="error">{failed.error?.message || t('somethingWentWrong')}</Alert>;
  if (queries.some((q) => q.isPending)) return <SectionSpinner />;
  return <>{children()}</>;
}
