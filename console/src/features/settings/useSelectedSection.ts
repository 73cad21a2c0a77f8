import { useSearchParams } from 'react-router';

/** The section chosen in the URL's `?<param>=` (the first one when absent or unknown). */
export function useSelectedSection(param: string, ids: readonly string[]) {
  const [params, setParams] = useSearchParams();
  const value = params.get(param) ?? '';
  const selected = ids.includes(value) ? value : ids[0]!;
  const select = (id: string) => setParams(id === ids[0] ? {} : { [param]: id }, { replace: true });
  return [selected, select] as const;
}
